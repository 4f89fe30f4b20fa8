import type { ResultFacts, RunFacts, TestSummary } from './test-analysis.js';
import { isFailure } from './test-status.js';

/** A run's failed tests (storage ids), and which of them are new and which flaky. */
export interface RunFailureKinds {
  failed: number[];
  /** Failed here, and its latest result on the flip branch in an earlier run was a pass. */
  news: number[];
  /** Failed here, and flaky over the runs analysed. */
  flaky: number[];
}

/**
 * The failures of each of `runs` (oldest first) split as docs/tests.md's "New failures" and
 * "Flaky failures" say: shared by get-test-runs and the channels' build messages, so both say
 * the same of a run. `results` need hold only the flagged tests' (a failure is flagged).
 */
export function runFailureKinds(
  runs: readonly RunFacts[],
  results: readonly Pick<ResultFacts, 'testId' | 'runId' | 'status'>[],
  branch: string | null,
  summaries: ReadonlyMap<number, TestSummary>,
): (runId: number) => RunFailureKinds {
  // Each test's outcome in the flip branch's runs, oldest first, to find the one before.
  const order = new Map(runs.map((run, i) => [run.id, i]));
  const onBranch = new Map<number, { order: number; failed: boolean }[]>();
  const failuresOf = new Map<number, number[]>();
  for (const r of results) {
    const at = order.get(r.runId);
    if (at === undefined) continue;
    if (isFailure(r.status)) {
      const list = failuresOf.get(r.runId) ?? [];
      list.push(r.testId);
      failuresOf.set(r.runId, list);
    }
    if (runs[at]?.branch !== branch || r.status === 3) continue;
    const list = onBranch.get(r.testId) ?? [];
    list.push({ order: at, failed: isFailure(r.status) });
    onBranch.set(r.testId, list);
  }
  for (const list of onBranch.values()) list.sort((a, b) => a.order - b.order);
  return (runId) => {
    const at = order.get(runId) ?? -1;
    const failed = failuresOf.get(runId) ?? [];
    return {
      failed,
      news: failed.filter((testId) => {
        const before = (onBranch.get(testId) ?? []).filter((r) => r.order < at).at(-1);
        return before !== undefined && !before.failed;
      }),
      flaky: failed.filter((testId) => summaries.get(testId)?.flaky),
    };
  };
}
