import { decodeUpkeep, type TestUpkeep } from '../../domain/tests/test-upkeep.js';
import type {
  FlaggedResults,
  QuarantineEntry,
  StoredTest,
  StoredTestResult,
  StoredTestRun,
} from './test-repository.js';
import { statusAt } from './test-repository.js';

/**
 * The columns both backends select, under the same names, and the one mapping of their rows:
 * SQLite and PostgreSQL differ only in SQL.
 */
export const RUN_COLUMNS = `id, project_id AS "projectId", key, build_id AS "buildId", attempt,
  commit_sha AS "commit", branch, pull_request AS "pullRequest", event_id AS "eventId",
  created_at AS "createdAt", passed, failed, errors, skipped, flaky, duration_ms AS "durationMs"`;

export const RESULT_COLUMNS = `test_id AS "testId", run_id AS "runId", status,
  duration_ms AS "durationMs", attempts, message_id AS "messageId"`;

export const TEST_COLUMNS = `id, key, suite, classname, name, file, line, first_seen AS "firstSeen"`;

export const QUARANTINE_COLUMNS = `test_key AS "testKey", reason, created_at AS "createdAt",
  automatic`;

const n = (value: unknown) => Number(value);
const nOrNull = (value: unknown) => (value === null ? null : Number(value));

export const runOf = (row: Record<string, unknown>): StoredTestRun => ({
  id: n(row.id),
  projectId: row.projectId as string,
  key: row.key as string,
  buildId: row.buildId as string,
  attempt: n(row.attempt),
  commit: row.commit as string | null,
  branch: row.branch as string | null,
  pullRequest: nOrNull(row.pullRequest),
  eventId: row.eventId as string | null,
  createdAt: n(row.createdAt),
  passed: n(row.passed),
  failed: n(row.failed),
  errors: n(row.errors),
  skipped: n(row.skipped),
  flaky: n(row.flaky),
  durationMs: n(row.durationMs),
});

export const UPKEEP_COLUMNS = `id, project_id AS "projectId", run_id AS "runId", branch, day, work`;

/** A queued upkeep (domain/tests/test-upkeep.ts) as read, its work decoded. */
export const upkeepOf = (
  row: Record<string, unknown>,
): TestUpkeep & { id: number; projectId: string } => ({
  id: n(row.id),
  projectId: row.projectId as string,
  runId: n(row.runId),
  branch: row.branch as string | null,
  day: n(row.day),
  ...decodeUpkeep(row.work as string),
});

export const resultOf = (row: Record<string, unknown>): StoredTestResult => ({
  testId: n(row.testId),
  runId: n(row.runId),
  status: n(row.status),
  durationMs: n(row.durationMs),
  attempts: n(row.attempts),
  messageId: nOrNull(row.messageId),
});

/**
 * One test's results as one row (`resultsOfTests`): the columns of its results each as a list of
 * numbers in one text, `statuses` a digit a result, in the same order (each aggregate of a
 * group sees its rows in one order). A row per result made each read of the flagged tests cost
 * more in the driver's per-row work than in the database (60,000 rows at 10 M results). `text`
 * makes a column's list, a null as an empty item.
 */
export const AGGREGATED_RESULTS = (text: (column: string) => string, digits: string) => `
  test_id AS "testId", ${text('run_id')} AS "runIds", ${digits} AS statuses,
  ${text('duration_ms')} AS durations, ${text('attempts')} AS attempts,
  ${text('message_id')} AS messages`;

/** The numbers of a comma-separated list; an empty item is null. */
function numbers(text: string): (number | null)[] {
  const out: (number | null)[] = [];
  let value = 0;
  let empty = true;
  for (let i = 0; i <= text.length; i++) {
    const c = i === text.length ? 44 : text.charCodeAt(i);
    if (c === 44) {
      out.push(empty ? null : value);
      value = 0;
      empty = true;
    } else {
      value = value * 10 + (c - 48);
      empty = false;
    }
  }
  return out;
}

/** The results of AGGREGATED_RESULTS' rows. */
export function aggregatedResults(rows: readonly Record<string, unknown>[]): StoredTestResult[] {
  const out: StoredTestResult[] = [];
  for (const row of rows) {
    const testId = n(row.testId);
    const runIds = numbers(row.runIds as string);
    const statuses = row.statuses as string;
    const durations = numbers(row.durations as string);
    const attempts = numbers(row.attempts as string);
    const messages = numbers(row.messages as string);
    for (let i = 0; i < runIds.length; i++) {
      out.push({
        testId,
        runId: runIds[i] as number,
        status: statusAt(statuses, i),
        durationMs: durations[i] as number,
        attempts: attempts[i] as number,
        messageId: messages[i] ?? null,
      });
    }
  }
  return out;
}

/** FlaggedResults' columns, `text` a column's list and `digits` the statuses' (as AGGREGATED_RESULTS). */
export const FLAGGED_BY_TEST = (text: (column: string) => string, digits: string) =>
  `test_id AS "testId", ${text('run_id')} AS "runIds", ${digits} AS statuses,
   ${text('attempts')} AS attempts`;

/** The FlaggedResults of FLAGGED_BY_TEST's rows. */
export const flaggedResultsOf = (rows: readonly Record<string, unknown>[]): FlaggedResults[] =>
  rows.map((row) => ({
    testId: n(row.testId),
    runIds: numbers(row.runIds as string) as number[],
    statuses: row.statuses as string,
    attempts: numbers(row.attempts as string) as number[],
  }));

export const testOf = (row: Record<string, unknown>): StoredTest => ({
  id: n(row.id),
  key: row.key as string,
  suite: row.suite as string,
  classname: row.classname as string | null,
  name: row.name as string,
  file: row.file as string | null,
  line: nOrNull(row.line),
  firstSeen: n(row.firstSeen),
});

export const quarantineOf = (row: Record<string, unknown>): QuarantineEntry => ({
  testKey: row.testKey as string,
  reason: row.reason as string,
  createdAt: n(row.createdAt),
  automatic: Boolean(row.automatic),
});

/** The release times of `test_quarantine_releases` rows, by test key. */
export const releasesOf = (rows: readonly Record<string, unknown>[]): Map<string, number> =>
  new Map(rows.map((row) => [row.test_key as string, n(row.released_at)]));

/**
 * A search text as a LIKE pattern matching it anywhere (`\` escapes LIKE's own characters);
 * both backends compare lowercased text.
 */
export const containsPattern = (text: string) =>
  `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The merge of a result already in the run with a new one (domain/tests/test-status.ts). */
export const MERGE_STATUS = `CASE
  WHEN test_results.status = excluded.status THEN test_results.status
  WHEN test_results.status = 3 THEN excluded.status
  WHEN excluded.status = 3 THEN test_results.status
  WHEN test_results.status = 0 OR excluded.status = 0 THEN 0
  ELSE 1 END`;

/**
 * A flagged result: failed, errored or passed on retry (`test_results_flagged`'s predicate; a
 * query names it word for word so that both planners use that partial index).
 */
export const FLAGGED = '(status IN (1, 2) OR attempts > 1)';

/** A run's counts made again from its results (the definition run-counts.ts keeps). */
export const RECOUNT = `SELECT
  count(*) FILTER (WHERE status = 0),
  count(*) FILTER (WHERE status = 1),
  count(*) FILTER (WHERE status = 2),
  count(*) FILTER (WHERE status = 3),
  count(*) FILTER (WHERE status = 0 AND attempts > 1),
  coalesce(sum(duration_ms), 0)
  FROM test_results WHERE run_id = `;
