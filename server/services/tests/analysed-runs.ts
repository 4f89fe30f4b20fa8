import type { Storage } from '../../storage/storage.js';
import type { StoredTestResult, StoredTestRun } from '../../storage/tests/test-repository.js';

/**
 * Which tests' results an analysis of some runs loads: every test's (`all`: the slowest and
 * by-name lists, which rank every test), the flagged tests' only (`flagged`: a test that neither
 * failed, errored nor passed on retry in those runs is neither flaky nor failing, so the flaky
 * and failing answers are the same without it), or the given tests' (one test's line).
 */
export type Scope = 'all' | 'flagged' | { testIds: readonly number[] };

/**
 * The results of `runs` (oldest first, of one project) that an analysis of `scope` needs. For
 * `flagged` and given tests, each test's results are all of its results in those runs, so that
 * test's analysis is the same as over every result (docs/decisions.md).
 */
export async function resultsFor(
  storage: Pick<Storage, 'tests'>,
  runs: readonly StoredTestRun[],
  scope: Scope,
): Promise<StoredTestResult[]> {
  const first = runs[0];
  const last = runs.at(-1);
  if (first === undefined || last === undefined) return [];
  const runIds = runs.map((run) => run.id);
  if (scope === 'all') return storage.tests.results(runIds);
  const testIds = scope === 'flagged' ? await storage.tests.flagged(runIds) : scope.testIds;
  if (testIds.length === 0) return [];
  // By id range through the index by test; the runs between them of another branch, or past
  // the range, are left out here.
  const mine = new Set(runIds);
  return (await storage.tests.resultsOfTests(testIds, first.id, last.id)).filter((r) =>
    mine.has(r.runId),
  );
}
