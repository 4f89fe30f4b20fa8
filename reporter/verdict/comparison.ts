/**
 * The answer of `GET /stats/compare` (issue 23) as the reporters read it: the record just stored,
 * each of its keys judged against its baseline, and the alerts it raised. The server makes the
 * comparison, so the pull request, the page and the alert show one verdict.
 *
 * The shape is the contract's `Comparison` (contract/verdicts.ts, on the verdicts branch); until
 * that lands on main it is written out here, and the check below is what the reporters accept.
 */
export const COMPARE_PATH = '/stats/compare';

export type VerdictName = 'regression' | 'improvement' | 'ok' | 'no-baseline' | 'no-direction';
const VERDICTS: readonly string[] = [
  'regression',
  'improvement',
  'ok',
  'no-baseline',
  'no-direction',
];

export interface ComparedKey {
  key: string;
  unit: string | null;
  direction: 'lower' | 'higher' | null;
  value: number;
  baseline: number | null;
  lower_limit: number | null;
  upper_limit: number | null;
  /** value / baseline − 1; null without a baseline. */
  change: number | null;
  test: string | null;
  sample_size: number | null;
  verdict: VerdictName;
  base: { branch: string | null; commit: string | null };
}

export interface Comparison {
  record: { id: string; branch: string | null; commit: string | null };
  keys: ComparedKey[];
  alerts: unknown[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const numberOrNull = (value: unknown) =>
  value === null || (typeof value === 'number' && Number.isFinite(value));
const textOrNull = (value: unknown) => value === null || typeof value === 'string';

function isComparedKey(value: unknown): value is ComparedKey {
  if (!isObject(value)) return false;
  const { key, unit, direction, verdict, base } = value;
  return (
    typeof key === 'string' &&
    textOrNull(unit) &&
    (direction === null || direction === 'lower' || direction === 'higher') &&
    typeof value.value === 'number' &&
    Number.isFinite(value.value) &&
    ['baseline', 'lower_limit', 'upper_limit', 'change', 'sample_size'].every((field) =>
      numberOrNull(value[field]),
    ) &&
    textOrNull(value.test) &&
    typeof verdict === 'string' &&
    VERDICTS.includes(verdict) &&
    isObject(base) &&
    textOrNull(base.branch) &&
    textOrNull(base.commit)
  );
}

/** The server's answer as a Comparison, or undefined when it is not one. */
export function readComparison(body: unknown): Comparison | undefined {
  if (!isObject(body) || !isObject(body.record) || !Array.isArray(body.keys)) return undefined;
  const { id, branch, commit } = body.record;
  if (typeof id !== 'string' || !textOrNull(branch) || !textOrNull(commit)) return undefined;
  if (!body.keys.every(isComparedKey)) return undefined;
  return body as unknown as Comparison;
}

/** The keys that got each verdict. */
export function countVerdicts(comparison: Comparison): Record<VerdictName, number> {
  const counts = { regression: 0, improvement: 0, ok: 0, 'no-baseline': 0, 'no-direction': 0 };
  for (const { verdict } of comparison.keys) counts[verdict] += 1;
  return counts;
}
