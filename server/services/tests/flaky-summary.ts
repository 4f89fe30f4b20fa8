import { FLIP_WINDOW, SCORE_HALF_LIFE } from '../../domain/tests/test-analysis.js';
import {
  EVERY_BRANCH,
  parseRecent,
  RETRIED,
  type RecentResult,
} from '../../domain/tests/test-recent.js';
import { isFailure, passedOnRetry } from '../../domain/tests/test-status.js';
import type { Storage } from '../../storage/storage.js';
import { type StoredTestRun, statusAt } from '../../storage/tests/test-repository.js';

/**
 * Whether `runs` (a range's, oldest first, `branch` the range's filter) are every run of the
 * project (of that branch) from their first one on: then the per-test summaries answer for them
 * (domain/tests/test-recent.ts). A range ending before the newest run is answered from the
 * results instead.
 */
export async function reachesNewest(
  storage: Pick<Storage, 'tests'>,
  projectId: string,
  runs: readonly StoredTestRun[],
  branch: string | undefined,
): Promise<boolean> {
  const first = runs[0];
  if (first === undefined) return false;
  return (await storage.tests.runsFrom(projectId, branch, first.id)) === runs.length;
}

/**
 * The tests that ran in `runs` (which reach the newest run): those whose summary of the range's
 * branch (of every branch without one) has a result from the first run on.
 */
export function ranSince(
  storage: Pick<Storage, 'tests'>,
  projectId: string,
  runs: readonly StoredTestRun[],
  branch: string | undefined,
): Promise<number[]> {
  const first = runs[0];
  if (first === undefined) return Promise.resolve([]);
  return storage.tests.testsSince(projectId, branch ?? EVERY_BRANCH, first.id);
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const failed = (r: RecentResult) => isFailure(r.code);

/**
 * The flaky tests over `runs` (which reach the newest run) with their scores, by the definition
 * of docs/tests.md without reading every result of the flagged tests: (1) a pass on retry and
 * (2) a commit with both outcomes from the flagged results of the runs (the passes of (2) probed
 * only at the commits that ran more than once), (3) the flips and the score from the summaries'
 * newest 30 outcomes, which over runs reaching the newest are the test's last 30 in them.
 */
export async function flakyScores(
  storage: Pick<Storage, 'tests'>,
  runs: readonly StoredTestRun[],
  flipBranch: string | null,
): Promise<Map<number, number>> {
  const scores = new Map<number, number>();
  if (runs.length === 0) return scores;
  const inRange = new Map(runs.map((run) => [run.id, run]));
  const runIds = runs.map((run) => run.id);
  // A test at a time, its results as lists (no object per result: tens of thousands a request).
  const flagged = await storage.tests.flaggedByTest(runIds);
  if (flagged.length === 0) return scores;
  const candidates = flagged.map((f) => f.testId);
  const evident = new Set<number>();
  // (1) a pass on retry.
  for (const f of flagged) {
    for (let i = 0; i < f.runIds.length; i++) {
      if (passedOnRetry(statusAt(f.statuses, i), f.attempts[i] as number)) {
        evident.add(f.testId);
        break;
      }
    }
  }
  // (2) at one commit both outcomes: a flagged failure at a commit with more than one run, and
  // a pass of the test in another run of that commit (probed).
  const runsOfCommit = new Map<string, number[]>();
  for (const run of runs) {
    if (run.commit === null) continue;
    const list = runsOfCommit.get(run.commit) ?? [];
    list.push(run.id);
    runsOfCommit.set(run.commit, list);
  }
  // Per test: the commits it failed at, and the runs where its result is flagged (no pass there).
  const failedAt = new Map<number, { commits: Set<string>; flaggedRuns: Set<number> }>();
  for (const f of flagged) {
    if (evident.has(f.testId)) continue;
    const commits = new Set<string>();
    for (let i = 0; i < f.runIds.length; i++) {
      const commit = inRange.get(f.runIds[i] as number)?.commit ?? null;
      if (!isFailure(statusAt(f.statuses, i)) || commit === null) continue;
      if ((runsOfCommit.get(commit) as number[]).length >= 2) commits.add(commit);
    }
    if (commits.size > 0) failedAt.set(f.testId, { commits, flaggedRuns: new Set(f.runIds) });
  }
  if (failedAt.size > 0) {
    // Each such test in the other runs of the commits it failed at, pair by pair, but those where
    // its result is flagged already (a test that fails for good in every run of its commits
    // costs no look-up at all).
    const pairRuns: number[] = [];
    const pairTests: number[] = [];
    for (const [testId, { commits, flaggedRuns }] of failedAt) {
      for (const commit of commits) {
        for (const runId of runsOfCommit.get(commit) as number[]) {
          if (flaggedRuns.has(runId)) continue;
          pairRuns.push(runId);
          pairTests.push(testId);
        }
      }
    }
    const probed = pairRuns.length > 0 ? await storage.tests.resultsAt(pairRuns, pairTests) : [];
    for (const r of probed) {
      const commit = inRange.get(r.runId)?.commit;
      if (r.status === 0 && commit && failedAt.get(r.testId)?.commits.has(commit)) {
        evident.add(r.testId);
      }
    }
  }
  // (3) and the score, from the summaries.
  const branch = flipBranch ?? EVERY_BRANCH;
  const rows = await storage.tests.summaries(candidates, [...new Set([branch, EVERY_BRANCH])]);
  const recent = new Map(rows.map((row) => [`${row.testId}\u0001${row.branch}`, row.recent]));
  const windowOf = (testId: number, b: string) =>
    parseRecent(recent.get(`${testId}\u0001${b}`) ?? '')
      .filter((r) => inRange.has(r.runId))
      .slice(-FLIP_WINDOW);
  for (const testId of candidates) {
    const onBranch = windowOf(testId, branch);
    const sequence = onBranch.length > 0 ? onBranch : windowOf(testId, EVERY_BRANCH);
    let stage = 0;
    for (const r of onBranch) {
      if (stage === 0 && failed(r)) stage = 1;
      else if (stage === 1 && !failed(r)) stage = 2;
      else if (stage === 2 && failed(r)) stage = 3;
    }
    if (stage < 3 && !evident.has(testId)) continue;
    let weighted = 0;
    let weights = 0;
    for (let k = 0; k < sequence.length; k++) {
      const i = sequence.length - 1 - k;
      const r = sequence[i] as RecentResult;
      const older = sequence[i - 1];
      const flip = older !== undefined && failed(older) !== failed(r);
      const signal = (failed(r) || r.code === RETRIED ? 1 : 0) + (flip ? 1 : 0);
      const weight = 0.5 ** (k / SCORE_HALF_LIFE);
      weighted += weight * signal;
      weights += weight;
    }
    scores.set(testId, weights > 0 ? round3(weighted / weights) : 0);
  }
  return scores;
}
