import type { TestStatus } from '../../../contract/tests/ingest-tests.js';

/** A status as stored: one small integer. */
export const STATUS_CODE: Record<TestStatus, number> = {
  passed: 0,
  failed: 1,
  error: 2,
  skipped: 3,
};
export const STATUS_NAME: readonly TestStatus[] = ['passed', 'failed', 'error', 'skipped'];

export const isFailure = (code: number) => code === 1 || code === 2;

/**
 * One test seen twice in one run (a retry reported as a second case, a second batch): the run's
 * outcome is a pass when either attempt passed (its failed attempts make it flaky, counted in
 * `attempts`), a failure when both failed (failed over error), and a skip only when both were.
 */
export function mergeStatus(a: number, b: number): number {
  if (a === b) return a;
  if (a === 3) return b;
  if (b === 3) return a;
  if (a === 0 || b === 0) return 0;
  return 1;
}

/** Passed, but only after failed attempts in the same run. */
export const passedOnRetry = (status: number, attempts: number) => status === 0 && attempts > 1;
