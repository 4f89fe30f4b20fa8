import { isFailure, passedOnRetry } from './test-status.js';

/** A run as the analysis needs it. */
export interface RunFacts {
  id: number;
  commit: string | null;
  branch: string | null;
  createdAt: number;
}

export interface ResultFacts {
  testId: number;
  runId: number;
  status: number;
  durationMs: number;
  attempts: number;
}

/** What the answers say of one test over the selected runs (docs/tests.md, "Answers"). */
export interface TestSummary {
  testId: number;
  runs: number;
  passed: number;
  failed: number;
  skipped: number;
  passedOnRetry: number;
  /** failed / (passed + failed); null when it never passed or failed. */
  failureRate: number | null;
  flaky: boolean;
  /** Weighted flips and failures per run, recent runs weighing more; 0 for a steady test. */
  flakyScore: number;
  firstFlakyAt: number | null;
  lastFlakyAt: number | null;
  /** The commits where it flaked, newest first (at most 10). */
  flakyCommits: string[];
  p50Ms: number | null;
  p95Ms: number | null;
}

/** A flip is judged over a test's last this many runs on the branch (not skipped). */
export const FLIP_WINDOW = 30;
/** A run this many runs older weighs half as much in the flaky score. */
export const SCORE_HALF_LIFE = 10;
const MAX_COMMITS = 10;

/** Nearest-rank percentile of sorted values: the smallest value with at least q of them at or below. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] as number;
}

/** The branch most of the runs are on (ties: the alphabetically first); null without branches. */
export function defaultBranch(runs: readonly RunFacts[]): string | null {
  const counts = new Map<string, number>();
  for (const run of runs) {
    if (run.branch !== null) counts.set(run.branch, (counts.get(run.branch) ?? 0) + 1);
  }
  let best: string | null = null;
  for (const [branch, n] of counts) {
    const bestN = best === null ? -1 : (counts.get(best) as number);
    if (n > bestN || (n === bestN && best !== null && branch < best)) best = branch;
  }
  return best;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/**
 * Each test's summary over the runs given (oldest first) and their results. A test is flaky when
 * (1) it passed on retry in a run, (2) at one commit it both failed and passed (across runs), or
 * (3) among its last 30 runs on `flipBranch` (skips left out) a failure is followed, later, by a
 * pass and then by another failure. Its score is, over that same sequence (all its runs when it
 * has none on the branch), newest first with weight 0.5^(k/10) for the k-th: the weighted mean of
 * (failed or passed on retry: 1) + (outcome differs from the run before: 1).
 */
export function analyseTests(
  runs: readonly RunFacts[],
  results: readonly ResultFacts[],
  flipBranch: string | null,
): Map<number, TestSummary> {
  const runById = new Map(runs.map((run, order) => [run.id, { run, order }]));
  const byTest = new Map<number, ResultFacts[]>();
  for (const result of results) {
    if (!runById.has(result.runId)) continue;
    const list = byTest.get(result.testId);
    if (list) list.push(result);
    else byTest.set(result.testId, [result]);
  }
  const summaries = new Map<number, TestSummary>();
  for (const [testId, list] of byTest) {
    list.sort((a, b) => (runById.get(a.runId)?.order ?? 0) - (runById.get(b.runId)?.order ?? 0));
    const runOf = (r: ResultFacts) => (runById.get(r.runId) as { run: RunFacts }).run;
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let retried = 0;
    const durations: number[] = [];
    const evidence = new Set<ResultFacts>();
    const byCommit = new Map<string, { pass: ResultFacts[]; fail: ResultFacts[] }>();
    for (const r of list) {
      if (r.status === 3) {
        skipped += 1;
        continue;
      }
      durations.push(r.durationMs);
      const fail = isFailure(r.status);
      if (fail) failed += 1;
      else passed += 1;
      if (passedOnRetry(r.status, r.attempts)) {
        retried += 1;
        evidence.add(r);
      }
      const commit = runOf(r).commit;
      if (commit !== null) {
        const entry = byCommit.get(commit) ?? { pass: [], fail: [] };
        (fail ? entry.fail : entry.pass).push(r);
        byCommit.set(commit, entry);
      }
    }
    for (const { pass, fail } of byCommit.values()) {
      if (pass.length > 0 && fail.length > 0) for (const r of [...pass, ...fail]) evidence.add(r);
    }
    const played = list.filter((r) => r.status !== 3);
    const onBranch = played.filter((r) => runOf(r).branch === flipBranch);
    const sequence = (onBranch.length > 0 ? onBranch : played).slice(-FLIP_WINDOW);
    const failedAt = (r: ResultFacts) => isFailure(r.status);
    // Fail, then pass, then fail: over the branch's window only.
    let stage = 0;
    for (const r of onBranch.slice(-FLIP_WINDOW)) {
      if (stage === 0 && failedAt(r)) stage = 1;
      else if (stage === 1 && !failedAt(r)) stage = 2;
      else if (stage === 2 && failedAt(r)) stage = 3;
    }
    const flips = stage === 3;
    let weighted = 0;
    let weights = 0;
    for (let k = 0; k < sequence.length; k++) {
      const i = sequence.length - 1 - k;
      const r = sequence[i] as ResultFacts;
      const older = sequence[i - 1];
      const flip = older !== undefined && failedAt(older) !== failedAt(r);
      if (flips && flip) evidence.add(r);
      const signal = (failedAt(r) || passedOnRetry(r.status, r.attempts) ? 1 : 0) + (flip ? 1 : 0);
      const weight = 0.5 ** (k / SCORE_HALF_LIFE);
      weighted += weight * signal;
      weights += weight;
    }
    const flaky = evidence.size > 0;
    const evidenceRuns = [...evidence]
      .map(runOf)
      .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
    const commits = [
      ...new Set(evidenceRuns.flatMap((run) => (run.commit === null ? [] : [run.commit]))),
    ];
    durations.sort((a, b) => a - b);
    summaries.set(testId, {
      testId,
      runs: list.length,
      passed,
      failed,
      skipped,
      passedOnRetry: retried,
      failureRate: passed + failed === 0 ? null : round3(failed / (passed + failed)),
      flaky,
      flakyScore: flaky && weights > 0 ? round3(weighted / weights) : 0,
      firstFlakyAt: flaky ? Math.min(...evidenceRuns.map((run) => run.createdAt)) : null,
      lastFlakyAt: flaky ? Math.max(...evidenceRuns.map((run) => run.createdAt)) : null,
      flakyCommits: commits.slice(0, MAX_COMMITS),
      p50Ms: percentile(durations, 0.5),
      p95Ms: percentile(durations, 0.95),
    });
  }
  return summaries;
}
