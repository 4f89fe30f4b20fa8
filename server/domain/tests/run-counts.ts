import type { DayChange, ResultShape } from './test-days.js';
import { passedOnRetry } from './test-status.js';

/**
 * A run's counts (test_runs: passed, failed, errors, skipped, flaky = passed on retry, and the
 * durations' sum), kept by adding each batch's change: a new result adds itself, a merged one
 * takes its old self out first. What counting the run's results again gives (test-rows.ts
 * RECOUNT), without reading them: that read grew with the run, and the 20th batch of a
 * 100,000-case run read 95,000 results to count 5,000 more.
 */
export interface RunCounts {
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  flaky: number;
  durationMs: number;
}

function add(into: RunCounts, r: ResultShape, sign: 1 | -1): void {
  if (r.status === 0) into.passed += sign;
  else if (r.status === 1) into.failed += sign;
  else if (r.status === 2) into.errors += sign;
  else into.skipped += sign;
  if (passedOnRetry(r.status, r.attempts)) into.flaky += sign;
  into.durationMs += sign * r.durationMs;
}

/** What a batch's results (before and after each merge) add to its run's counts. */
export function runCountsChange(changes: readonly DayChange[]): RunCounts {
  const counts = { passed: 0, failed: 0, errors: 0, skipped: 0, flaky: 0, durationMs: 0 };
  for (const c of changes) {
    if (c.before) add(counts, c.before, -1);
    add(counts, c.after, 1);
  }
  return counts;
}
