/**
 * The answer of `GET /stats/compare` (issue 23) as the reporters read it: the record just stored,
 * each of its keys judged against its baseline, and the alerts it raised. The server makes the
 * comparison, so the pull request, the page and the alert show one verdict.
 *
 * The shapes are the contract's (contract/verdicts.ts), imported as types only so the bundles do
 * not carry the contract's schemas; the check below is what the reporters accept. The alerts are
 * not checked, so they stay unknown here.
 */
import type {
  ComparedKey,
  Comparison as ServerComparison,
  VerdictName,
} from '../../contract/verdicts.js';

export type { ComparedKey, VerdictName };

/** Written out rather than taken from VerdictPaths, whose module holds the server's schemas. */
export const COMPARE_PATH = '/stats/compare';

const VERDICTS: readonly string[] = [
  'regression',
  'improvement',
  'ok',
  'no-baseline',
  'no-direction',
];

export type Comparison = Omit<ServerComparison, 'alerts'> & { alerts: unknown[] };

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
