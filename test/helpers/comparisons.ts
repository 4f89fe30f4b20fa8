import type { ComparedKey, Comparison } from '../../reporter/verdict/comparison.js';

/** A key of a compare answer, `lower`-is-better, with a t_test upper limit unless told. */
export function comparedKey(key: string, fields: Partial<ComparedKey> = {}): ComparedKey {
  const value = fields.value ?? 100;
  const baseline = fields.baseline === undefined ? 100 : fields.baseline;
  return {
    key,
    unit: 'ms',
    direction: 'lower',
    value,
    baseline,
    lower_limit: null,
    upper_limit: 120,
    change: baseline ? value / baseline - 1 : null,
    test: 't_test',
    sample_size: 64,
    verdict: 'ok',
    base: { branch: 'main', commit: '2222222222222222222222222222222222222222' },
    ...fields,
  };
}

/** The answer of GET /stats/compare for a record, as the verdicts issue specifies it. */
export function comparisonOf(keys: ComparedKey[], recordId = 'm1'): Comparison {
  return {
    record: {
      id: recordId,
      branch: 'feature/cache',
      commit: '1111111111111111111111111111111111111111',
    },
    keys,
    alerts: [],
  };
}
