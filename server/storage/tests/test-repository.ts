import type { RunCounts } from '../../domain/tests/run-counts.js';
import type { TestResultInput } from '../../domain/tests/test-batch.js';
import type { DaySums } from '../../domain/tests/test-days.js';
import type { TestIdentity } from '../../domain/tests/test-identity.js';
import type { SummaryRow } from '../../domain/tests/test-recent.js';
import type { AppendResult, IdempotencyClaim } from '../storage.js';

/**
 * Tests as data (docs/tests.md): each project's tests stored once (`test_cases`), its runs
 * (`test_runs`, with their counts) and one compact row per test per run (`test_results`: two
 * integer ids, status, duration, attempts, a message id). Times are epoch ms; statuses the
 * codes of domain/tests/test-status.ts.
 */

/** A run as a batch names it. `key` is its id in the API (domain/tests/test-identity.ts). */
export interface TestRunFacts {
  projectId: string;
  key: string;
  buildId: string;
  attempt: number;
  commit: string | null;
  branch: string | null;
  pullRequest: number | null;
  eventId: string | null;
}

/** One test's outcome in a batch (a test appears once per batch: the service merged repeats). */
export type NewTestResult = TestResultInput;

export interface TestBatch {
  run: TestRunFacts;
  results: NewTestResult[];
  /** When the batch arrived: a run's time is that of its first batch. */
  at: number;
}

/** A run with its counts (`flaky`: passed after failed attempts). */
export interface StoredTestRun extends TestRunFacts, RunCounts {
  /** The storage's own id: runs are numbered in the order they were first stored. */
  id: number;
  createdAt: number;
}

/**
 * A test's flagged results in some runs, as lists in one order (`statuses` a digit a result): the
 * flaky answer reads tens of thousands of them a request, and an object per result cost more
 * than the database's read (docs/decisions.md, "A summary per test and branch").
 */
export interface FlaggedResults {
  testId: number;
  runIds: number[];
  statuses: string;
  attempts: number[];
}

/** The status of result `i` in a row-per-test read's `statuses` (a digit a result). */
export const statusAt = (statuses: string, i: number): number => statuses.charCodeAt(i) - 48;

export interface StoredTestResult {
  testId: number;
  runId: number;
  status: number;
  durationMs: number;
  attempts: number;
  messageId: number | null;
}

export interface StoredTest extends TestIdentity {
  id: number;
  key: string;
  line: number | null;
  firstSeen: number;
}

export interface RunFilter {
  branch?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

export interface QuarantineEntry {
  testKey: string;
  reason: string;
  createdAt: number;
  /** Whether the server quarantined it on its own (its flaky score above the threshold). */
  automatic: boolean;
}

export interface TestRepository {
  /**
   * Stores a batch: the run (made by its first batch), its tests' identities (made once per
   * project) and results; a test already in the run is merged (test-status.ts, attempts added);
   * then the batch's change is added to the run's counts (domain/tests/run-counts.ts), and the
   * upkeep of its tests' summaries and day rows is queued (domain/tests/test-upkeep.ts). With a claim, nothing is
   * stored when the (account, key) already has an answer, which is returned instead.
   */
  ingest(batch: TestBatch, claim?: IdempotencyClaim): Promise<AppendResult>;
  /**
   * Applies the oldest queued upkeep (of `projectId`'s batches, or of any) to the summaries and
   * day rows and removes it, in one transaction; false when none was queued. One caller at a
   * time (the `test-upkeep` lock): concurrent callers would apply the same entry twice.
   */
  applyUpkeep(projectId?: string): Promise<boolean>;
  /** Whether an upkeep is queued (of `projectId`'s batches, or of any). */
  upkeepPending(projectId?: string): Promise<boolean>;
  /** The project's runs matching the filter, oldest first (at most `limit`, the newest). */
  runs(projectId: string, filter: RunFilter, limit: number): Promise<StoredTestRun[]>;
  /** Runs by storage id (of one project). */
  runsById(projectId: string, ids: readonly number[]): Promise<StoredTestRun[]>;
  /** The results of these runs (of one project). */
  results(runIds: readonly number[]): Promise<StoredTestResult[]>;
  /** The failed and errored results of these runs. */
  failures(runIds: readonly number[]): Promise<StoredTestResult[]>;
  /**
   * The tests flagged in these runs (ids, ascending): a failed or errored result, or a pass on
   * retry. Only they can be flaky or failing (docs/decisions.md); read through the partial index
   * `test_results_flagged`, so the cost is that of the flagged results, not of all of them.
   */
  flagged(runIds: readonly number[]): Promise<number[]>;
  /**
   * These tests' results in the runs whose storage ids are between `firstRunId` and `lastRunId`
   * (both included), through the index by test: the caller keeps those of its runs.
   */
  resultsOfTests(
    testIds: readonly number[],
    firstRunId: number,
    lastRunId: number,
  ): Promise<StoredTestResult[]>;
  /**
   * The project's tests with a result in these runs (ascending run ids), ascending: one probe per
   * test through the index by test, not a pass over every result.
   */
  ranTests(projectId: string, runIds: readonly number[]): Promise<number[]>;
  /** How many of the project's runs (of `branch`, when given) have an id of `firstRunId` or more. */
  runsFrom(projectId: string, branch: string | undefined, firstRunId: number): Promise<number>;
  /**
   * The tests whose summary on `branch` (EVERY_BRANCH: any) has a result in a run of
   * `firstRunId` or newer (ascending): with runs that are all of the project's from that one on,
   * the tests that ran in them, read from the summaries (domain/tests/test-recent.ts).
   */
  testsSince(projectId: string, branch: string, firstRunId: number): Promise<number[]>;
  /** The summaries of these tests on these branches. */
  summaries(testIds: readonly number[], branches: readonly string[]): Promise<SummaryRow[]>;
  /**
   * Per test, its `test_days` rows on `branch` (EVERY_BRANCH: every branch) of these days added
   * up (the bins concatenated), for every test with a row (or only `testIds`'); any order.
   */
  daySums(
    projectId: string,
    branch: string,
    days: readonly number[],
    testIds?: readonly number[],
  ): Promise<DaySums[]>;
  /** The tests with a `test_days` row on `branch` in these days (ascending). */
  dayTests(projectId: string, branch: string, days: readonly number[]): Promise<number[]>;
  /** The flagged results of these runs (failed, errored, passed on retry), a test at a time. */
  flaggedByTest(runIds: readonly number[]): Promise<FlaggedResults[]>;
  /**
   * The results at these (run, test) pairs, `runIds[i]` with `testIds[i]`: an index look-up each
   * (a cross product of a commit's runs and the tests that failed there read every result of
   * those tests in the range on PostgreSQL: 137–157 ms at 50 M results).
   */
  resultsAt(runIds: readonly number[], testIds: readonly number[]): Promise<StoredTestResult[]>;
  /** Tests by storage id. */
  tests(projectId: string, ids: readonly number[]): Promise<StoredTest[]>;
  findTest(projectId: string, key: string): Promise<StoredTest | undefined>;
  /** The project's tests whose suite, class, name or file contains `text` (case-insensitive ASCII). */
  searchTests(projectId: string, text: string): Promise<number[]>;
  /** A test's results, newest run first, at most `limit`. */
  history(testId: number, limit: number): Promise<StoredTestResult[]>;
  /** The texts of message ids. */
  messages(ids: readonly number[]): Promise<Map<number, string>>;
  /** Each branch of the project's runs with how many runs it has. */
  branches(projectId: string): Promise<{ branch: string; runs: number }[]>;
  /**
   * True when it was not quarantined yet (an existing entry keeps its reason and time). A new
   * entry ends the test's release, if it had one.
   */
  quarantine(projectId: string, entry: QuarantineEntry): Promise<boolean>;
  /**
   * True when it was quarantined; then, in the same transaction, the test is released at
   * `releasedAt` (a release before is replaced).
   */
  unquarantine(projectId: string, testKey: string, releasedAt: number): Promise<boolean>;
  quarantined(projectId: string): Promise<QuarantineEntry[]>;
  /** When the owner took each released test out of quarantine (epoch ms), by test key. */
  releases(projectId: string): Promise<Map<string, number>>;
  /** The flaky score at or above which tests are quarantined automatically; null: off. */
  autoQuarantineScore(projectId: string): Promise<number | null>;
  setAutoQuarantineScore(projectId: string, score: number | null): Promise<void>;
  /**
   * The flaky check's state: how many checks the project had (null: none) and the tests flaky
   * at the last one.
   */
  flakyKnown(projectId: string): Promise<{ check: number | null; testIds: number[] }>;
  /**
   * Records a flaky check, only if the project's count of checks is still `check` (no other
   * process took one meanwhile): the tests flaky now (`known`) replace the last check's, and the
   * ones that became flaky (`news`, at `at`) are logged. True when this call took it.
   */
  takeFlakyCheck(
    projectId: string,
    check: number | null,
    known: readonly number[],
    news: { at: number; testIds: readonly number[] },
  ): Promise<boolean>;
}
