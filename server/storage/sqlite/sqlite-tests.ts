import { runCountsChange } from '../../domain/tests/run-counts.js';
import {
  type DayChange,
  type DaySums,
  dayOf,
  type ResultShape,
} from '../../domain/tests/test-days.js';
import {
  EVERY_BRANCH,
  type SummaryChange,
  type SummaryRow,
} from '../../domain/tests/test-recent.js';
import { encodeUpkeep, upkeepRows, upkeepTests } from '../../domain/tests/test-upkeep.js';
import type { TestRepository } from '../tests/test-repository.js';
import {
  AGGREGATED_RESULTS,
  aggregatedResults,
  containsPattern,
  FLAGGED,
  FLAGGED_BY_TEST,
  flaggedResultsOf,
  MERGE_STATUS,
  QUARANTINE_COLUMNS,
  quarantineOf,
  RESULT_COLUMNS,
  RUN_COLUMNS,
  releasesOf,
  resultOf,
  runOf,
  TEST_COLUMNS,
  testOf,
  UPKEEP_COLUMNS,
  upkeepOf,
} from '../tests/test-rows.js';
import type { Db } from './sqlite-database.js';
import type { sqliteIdempotency } from './sqlite-idempotency.js';
import type { Sync } from './sync.js';

export const testWrites = [
  'ingest',
  'applyUpkeep',
  'quarantine',
  'unquarantine',
  'setAutoQuarantineScore',
  'takeFlakyCheck',
] as const;

type Row = Record<string, unknown>;
// A column's list (a null as an empty item) and the statuses' digits, for both row-per-test reads.
const sqliteList = (column: string) => `group_concat(coalesce(${column}, ''))`;
const SQLITE_DIGITS = "group_concat(status, '')";

/** Tests as data on SQLite (storage/tests/test-repository.ts). */
export function sqliteTests(
  db: Db,
  idempotency: ReturnType<typeof sqliteIdempotency>,
): Sync<TestRepository> {
  const upsertRun = db.prepare(
    `INSERT INTO test_runs (project_id, key, build_id, attempt, commit_sha, branch, pull_request,
                              event_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_id, key) DO UPDATE SET
         commit_sha = coalesce(test_runs.commit_sha, excluded.commit_sha),
         branch = coalesce(test_runs.branch, excluded.branch),
         pull_request = coalesce(test_runs.pull_request, excluded.pull_request),
         event_id = coalesce(test_runs.event_id, excluded.event_id)
       RETURNING id, created_at AS createdAt`,
  );
  const findTestId = db
    .prepare('SELECT id FROM test_cases WHERE project_id = ? AND key = ?')
    .pluck();
  const addTest = db.prepare(
    `INSERT INTO test_cases (project_id, key, suite, classname, name, file, line, first_seen)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, key) DO NOTHING`,
  );
  const findMessage = db
    .prepare('SELECT id FROM test_messages WHERE project_id = ? AND text = ?')
    .pluck();
  const insertMessage = db.prepare('INSERT INTO test_messages (project_id, text) VALUES (?, ?)');
  // A test new to the run (the common case) is one statement; one already in it (a later batch)
  // is read first, so that its day rows take the change of its merge.
  const insertResult = db.prepare(
    `INSERT INTO test_results (run_id, test_id, status, duration_ms, attempts, message_id)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, test_id) DO NOTHING`,
  );
  const resultIn = db.prepare(
    `SELECT status, duration_ms AS durationMs, attempts FROM test_results
      WHERE run_id = ? AND test_id = ?`,
  );
  const upsertResult = db.prepare(
    `INSERT INTO test_results (run_id, test_id, status, duration_ms, attempts, message_id)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (run_id, test_id) DO UPDATE SET
       status = ${MERGE_STATUS},
       duration_ms = test_results.duration_ms + excluded.duration_ms,
       attempts = test_results.attempts + excluded.attempts,
       message_id = coalesce(test_results.message_id, excluded.message_id)
     RETURNING status, attempts, duration_ms AS durationMs`,
  );
  const keepDay = db.prepare(
    `INSERT INTO test_days (project_id, branch, day, test_id, runs, passed, failed, skipped,
                            retried, bins)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, branch, day, test_id) DO UPDATE SET
       runs = runs + excluded.runs, passed = passed + excluded.passed,
       failed = failed + excluded.failed, skipped = skipped + excluded.skipped,
       retried = retried + excluded.retried, bins = test_bins_add(bins, excluded.bins)`,
  );
  const branchOfRun = db
    .prepare('SELECT branch FROM test_runs WHERE project_id = ? AND key = ?')
    .pluck();
  const runResults = db.prepare(
    `SELECT test_id AS testId, status, attempts, duration_ms AS durationMs
       FROM test_results WHERE run_id = ?`,
  );
  const queueUpkeep = db.prepare(
    'INSERT INTO test_upkeep (project_id, run_id, branch, day, work) VALUES (?, ?, ?, ?, ?)',
  );
  const nextUpkeepOf = db.prepare(
    `SELECT ${UPKEEP_COLUMNS} FROM test_upkeep WHERE project_id = ? ORDER BY id LIMIT 1`,
  );
  const nextUpkeep = db.prepare(`SELECT ${UPKEEP_COLUMNS} FROM test_upkeep ORDER BY id LIMIT 1`);
  const pendingOf = db
    .prepare('SELECT EXISTS (SELECT 1 FROM test_upkeep WHERE project_id = ?)')
    .pluck();
  const anyPending = db.prepare('SELECT EXISTS (SELECT 1 FROM test_upkeep)').pluck();
  const doneUpkeep = db.prepare('DELETE FROM test_upkeep WHERE id = ?');
  const runExists = db.prepare('SELECT EXISTS (SELECT 1 FROM test_runs WHERE id = ?)').pluck();
  const storedOf = db.prepare(
    `SELECT test_id AS testId, status, attempts FROM test_results
      WHERE run_id = ? AND test_id IN (SELECT value FROM json_each(?))`,
  );
  const summaryOf = db.prepare(
    `SELECT test_id AS testId, branch, last_run AS lastRun, recent FROM test_summaries
      WHERE test_id = ? AND branch = ?`,
  );
  const saveSummary = db.prepare(
    `INSERT INTO test_summaries (project_id, test_id, branch, last_run, recent)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (test_id, branch) DO UPDATE SET
       last_run = excluded.last_run, recent = excluded.recent`,
  );
  const addCounts = db.prepare(
    `UPDATE test_runs SET passed = passed + @passed, failed = failed + @failed,
       errors = errors + @errors, skipped = skipped + @skipped, flaky = flaky + @flaky,
       duration_ms = duration_ms + @durationMs
     WHERE id = @run`,
  );
  const runsOf = db.prepare(
    `SELECT * FROM (
       SELECT ${RUN_COLUMNS} FROM test_runs
        WHERE project_id = @project AND (@branch IS NULL OR branch = @branch)
          AND created_at >= @from AND created_at < @to
        ORDER BY id DESC LIMIT @limit)
      ORDER BY id`,
  );
  const runsByIds = db.prepare(
    `SELECT ${RUN_COLUMNS} FROM test_runs
      WHERE project_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id`,
  );
  const resultsOf = db.prepare(
    `SELECT ${RESULT_COLUMNS} FROM test_results
      WHERE run_id IN (SELECT value FROM json_each(?)) ORDER BY run_id, test_id`,
  );
  const failuresOf = db.prepare(
    `SELECT ${RESULT_COLUMNS} FROM test_results
      WHERE run_id IN (SELECT value FROM json_each(?)) AND status IN (1, 2)
      ORDER BY run_id, test_id`,
  );
  const flaggedOf = db
    .prepare(
      // Named: without ANALYZE's statistics the planner takes the primary key, and reads every
      // result of the runs to keep the flagged ones.
      `SELECT DISTINCT test_id FROM test_results INDEXED BY test_results_flagged
        WHERE run_id IN (SELECT value FROM json_each(?)) AND ${FLAGGED} ORDER BY test_id`,
    )
    .pluck();
  // A row per test (test-rows.ts); group_concat takes the rows in the covering index's order.
  const resultsOfTests = db.prepare(
    `SELECT ${AGGREGATED_RESULTS(sqliteList, SQLITE_DIGITS)}
       FROM test_results
      WHERE test_id IN (SELECT value FROM json_each(?)) AND run_id BETWEEN ? AND ?
      GROUP BY test_id ORDER BY test_id`,
  );
  const ranTestsOf = db
    .prepare(
      `SELECT c.id FROM test_cases c WHERE c.project_id = @project AND EXISTS (
         SELECT 1 FROM test_results r WHERE r.test_id = c.id AND r.run_id BETWEEN @first AND @last
            AND (@every OR r.run_id IN (SELECT value FROM json_each(@runs))))
        ORDER BY c.id`,
    )
    .pluck();
  const runsBetween = db
    .prepare('SELECT count(*) FROM test_runs WHERE project_id = ? AND id BETWEEN ? AND ?')
    .pluck();
  const runsFromOf = db
    .prepare(
      `SELECT count(*) FROM test_runs
        WHERE project_id = @project AND id >= @first AND (@branch IS NULL OR branch = @branch)`,
    )
    .pluck();
  const testsSinceOf = db
    .prepare(
      `SELECT test_id FROM test_summaries
        WHERE project_id = ? AND branch = ? AND last_run >= ? ORDER BY test_id`,
    )
    .pluck();
  const summariesOf = db.prepare(
    `SELECT test_id AS testId, branch, last_run AS lastRun, recent FROM test_summaries
      WHERE test_id IN (SELECT value FROM json_each(?)) AND branch IN (SELECT value FROM json_each(?))`,
  );
  // Every test's, or some tests' (a page's) with the ids as a condition of the primary key.
  const daySumsSql = (some: string) =>
    `SELECT test_id AS testId, sum(runs) AS runs, sum(passed) AS passed, sum(failed) AS failed,
            sum(skipped) AS skipped, sum(retried) AS retried,
            coalesce(group_concat(nullif(bins, '')), '') AS bins
       FROM test_days
      WHERE project_id = @project AND branch = @branch
        AND day IN (SELECT value FROM json_each(@days)) ${some}
      GROUP BY test_id`;
  const daySumsOf = db.prepare(daySumsSql(''));
  const daySumsOfSome = db.prepare(
    daySumsSql('AND test_id IN (SELECT value FROM json_each(@tests))'),
  );
  const dayTestsOf = db
    .prepare(
      `SELECT DISTINCT test_id FROM test_days
        WHERE project_id = ? AND branch = ? AND day IN (SELECT value FROM json_each(?))
        ORDER BY test_id`,
    )
    .pluck();
  const flaggedByTestOf = db.prepare(
    `SELECT ${FLAGGED_BY_TEST(sqliteList, SQLITE_DIGITS)}
       FROM test_results INDEXED BY test_results_flagged
      WHERE run_id IN (SELECT value FROM json_each(?)) AND ${FLAGGED}
      GROUP BY test_id`,
  );
  const resultsAtOf = db.prepare(
    `SELECT ${RESULT_COLUMNS}
       FROM json_each(?) AS pair
       JOIN test_results ON run_id = pair.value ->> 0 AND test_id = pair.value ->> 1`,
  );
  const testsOf = db.prepare(
    `SELECT ${TEST_COLUMNS} FROM test_cases
      WHERE project_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id`,
  );
  const testByKey = db.prepare(
    `SELECT ${TEST_COLUMNS} FROM test_cases WHERE project_id = ? AND key = ?`,
  );
  const search = db
    .prepare(
      `SELECT id FROM test_cases WHERE project_id = @project
         AND (lower(suite) LIKE @text ESCAPE '\\' OR lower(coalesce(classname, '')) LIKE @text ESCAPE '\\'
              OR lower(name) LIKE @text ESCAPE '\\' OR lower(coalesce(file, '')) LIKE @text ESCAPE '\\')
       ORDER BY id`,
    )
    .pluck();
  const historyOf = db.prepare(
    `SELECT ${RESULT_COLUMNS} FROM test_results WHERE test_id = ? ORDER BY run_id DESC LIMIT ?`,
  );
  const messagesOf = db.prepare(
    'SELECT id, text FROM test_messages WHERE id IN (SELECT value FROM json_each(?))',
  );
  const branchesOf = db.prepare(
    `SELECT branch, count(*) AS runs FROM test_runs WHERE project_id = ? AND branch IS NOT NULL
      GROUP BY branch ORDER BY branch`,
  );
  const addQuarantine = db.prepare(
    `INSERT INTO test_quarantine (project_id, test_key, reason, created_at, automatic)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const removeQuarantine = db.prepare(
    'DELETE FROM test_quarantine WHERE project_id = ? AND test_key = ?',
  );
  const release = db.prepare(
    `INSERT INTO test_quarantine_releases (project_id, test_key, released_at) VALUES (?, ?, ?)
     ON CONFLICT (project_id, test_key) DO UPDATE SET released_at = excluded.released_at`,
  );
  const endRelease = db.prepare(
    'DELETE FROM test_quarantine_releases WHERE project_id = ? AND test_key = ?',
  );
  const releasesOfProject = db.prepare(
    'SELECT test_key, released_at FROM test_quarantine_releases WHERE project_id = ?',
  );
  const quarantineOfProject = db.prepare(
    `SELECT ${QUARANTINE_COLUMNS} FROM test_quarantine WHERE project_id = ?
      ORDER BY created_at, test_key`,
  );

  const scoreOf = db
    .prepare('SELECT auto_quarantine_score FROM test_settings WHERE project_id = ?')
    .pluck();
  const setScore = db.prepare(
    `INSERT INTO test_settings (project_id, auto_quarantine_score) VALUES (?, ?)
     ON CONFLICT (project_id) DO UPDATE SET auto_quarantine_score = excluded.auto_quarantine_score`,
  );

  const checkOf = db.prepare('SELECT flaky_check FROM test_settings WHERE project_id = ?').pluck();
  const knownOf = db.prepare('SELECT test_id FROM flaky_known WHERE project_id = ?').pluck();
  const takeCheck = db.prepare(
    `INSERT INTO test_settings (project_id, flaky_check) VALUES (?, 1)
     ON CONFLICT (project_id) DO UPDATE SET flaky_check = coalesce(test_settings.flaky_check, 0) + 1
      WHERE test_settings.flaky_check IS ?`,
  );
  const forgetKnown = db.prepare('DELETE FROM flaky_known WHERE project_id = ?');
  const know = db.prepare('INSERT INTO flaky_known (project_id, test_id) VALUES (?, ?)');
  const news = db.prepare(
    'INSERT OR IGNORE INTO flaky_news (project_id, at, test_id) VALUES (?, ?, ?)',
  );

  return {
    // A write of the group commit: the key, the run and its results commit together.
    ingest({ run, results, at }, claim) {
      if (claim) {
        const earlier = idempotency.claim(claim);
        if (earlier) return { stored: false, earlier };
      }
      const before = branchOfRun.get(run.projectId, run.key) as string | null | undefined;
      const { id: runId, createdAt } = upsertRun.get(
        run.projectId,
        run.key,
        run.buildId,
        run.attempt,
        run.commit,
        run.branch,
        run.pullRequest,
        run.eventId,
        at,
      ) as { id: number; createdAt: number };
      const days: DayChange[] = [];
      // A project's tests are mostly all known (its usual run) or all new (its first run, a new
      // suite): after a test that was new, the next is inserted first and looked up only if it
      // was known after all, which halves a first run's statements for its tests.
      let expectNew = false;
      for (const result of results) {
        const { test } = result;
        const identity = [test.suite, test.classname, test.name, test.file, test.line] as const;
        let testId: number | undefined;
        if (expectNew) {
          const added = addTest.run(run.projectId, test.key, ...identity, at);
          if (added.changes > 0) testId = Number(added.lastInsertRowid);
          else expectNew = false;
        }
        testId ??= findTestId.get(run.projectId, test.key) as number | undefined;
        if (testId === undefined) {
          testId = Number(addTest.run(run.projectId, test.key, ...identity, at).lastInsertRowid);
          expectNew = true;
        }
        let messageId: number | null = null;
        if (result.message !== null) {
          messageId =
            (findMessage.get(run.projectId, result.message) as number | undefined) ?? null;
          if (messageId === null) {
            messageId = Number(insertMessage.run(run.projectId, result.message).lastInsertRowid);
          }
        }
        const values = [
          runId,
          testId,
          result.status,
          result.durationMs,
          result.attempts,
          messageId,
        ] as const;
        if (insertResult.run(...values).changes > 0) days.push({ testId, after: result });
        else {
          const before = resultIn.get(runId, testId) as ResultShape;
          days.push({ testId, before, after: upsertResult.get(...values) as ResultShape });
        }
      }
      addCounts.run({ ...runCountsChange(days), run: runId });
      // A run named its branch only now: its earlier results join that branch's rows too.
      const named =
        before === null && run.branch !== null
          ? (runResults.all(runId) as (ResultShape & { testId: number })[]).map((r) => ({
              testId: r.testId,
              after: r,
            }))
          : null;
      // The summaries and day rows are kept behind the batches (domain/tests/test-upkeep.ts).
      queueUpkeep.run(
        run.projectId,
        runId,
        run.branch,
        dayOf(createdAt),
        encodeUpkeep(days, named),
      );
      return { stored: true };
    },

    // A write of the group commit: the queue's oldest entry (of the project, if named) applied
    // and removed together.
    applyUpkeep(projectId) {
      const row = (projectId === undefined ? nextUpkeep.get() : nextUpkeepOf.get(projectId)) as
        | Row
        | undefined;
      if (row === undefined) return false;
      const entry = upkeepOf(row);
      doneUpkeep.run(entry.id);
      // A run removed since (retention) leaves nothing to keep.
      if (runExists.get(entry.runId) === 0) return true;
      const tests = upkeepTests(entry);
      const results = (
        tests === null
          ? runResults.all(entry.runId)
          : storedOf.all(entry.runId, JSON.stringify(tests))
      ) as SummaryChange[];
      const branches = entry.branch === null ? [EVERY_BRANCH] : [EVERY_BRANCH, entry.branch];
      const stored = results.flatMap((c) =>
        branches.flatMap((b) => (summaryOf.get(c.testId, b) as SummaryRow | undefined) ?? []),
      );
      const rows = upkeepRows(entry, stored, results);
      for (const row of rows.summaries) {
        saveSummary.run(entry.projectId, row.testId, row.branch, row.lastRun, row.recent);
      }
      for (const row of rows.days) {
        keepDay.run(
          entry.projectId,
          row.branch,
          entry.day,
          row.testId,
          row.runs,
          row.passed,
          row.failed,
          row.skipped,
          row.retried,
          row.bins,
        );
      }
      return true;
    },

    upkeepPending: (projectId) =>
      (projectId === undefined ? anyPending.get() : pendingOf.get(projectId)) === 1,

    runs: (projectId, filter, limit) =>
      (
        runsOf.all({
          project: projectId,
          branch: filter.branch ?? null,
          from: filter.from ?? 0,
          to: filter.to ?? Number.MAX_SAFE_INTEGER,
          limit,
        }) as Row[]
      ).map(runOf),

    runsById: (projectId, ids) =>
      (runsByIds.all(projectId, JSON.stringify(ids)) as Row[]).map(runOf),

    results: (runIds) => (resultsOf.all(JSON.stringify(runIds)) as Row[]).map(resultOf),

    failures: (runIds) => (failuresOf.all(JSON.stringify(runIds)) as Row[]).map(resultOf),

    flagged: (runIds) => flaggedOf.all(JSON.stringify(runIds)) as number[],

    resultsOfTests: (testIds, firstRunId, lastRunId) =>
      aggregatedResults(
        resultsOfTests.all(JSON.stringify(testIds), firstRunId, lastRunId) as Row[],
      ),

    ranTests(projectId, runIds) {
      const first = runIds[0] ?? 0;
      const last = runIds.at(-1) ?? 0;
      // As on PostgreSQL (pg-tests.ts): the list is checked only when other runs of the
      // project are between the first and the last.
      const every = runsBetween.get(projectId, first, last) === runIds.length;
      return ranTestsOf.all({
        project: projectId,
        first,
        last,
        every: every ? 1 : 0,
        runs: JSON.stringify(runIds),
      }) as number[];
    },

    runsFrom: (projectId, branch, firstRunId) =>
      runsFromOf.get({ project: projectId, first: firstRunId, branch: branch ?? null }) as number,

    testsSince: (projectId, branch, firstRunId) =>
      testsSinceOf.all(projectId, branch, firstRunId) as number[],

    summaries: (testIds, branches) =>
      summariesOf.all(JSON.stringify(testIds), JSON.stringify(branches)) as SummaryRow[],

    daySums: (projectId, branch, days, testIds) => {
      const on = { project: projectId, branch, days: JSON.stringify(days) };
      return (
        testIds === undefined
          ? daySumsOf.all(on)
          : daySumsOfSome.all({ ...on, tests: JSON.stringify(testIds) })
      ) as DaySums[];
    },

    dayTests: (projectId, branch, days) =>
      dayTestsOf.all(projectId, branch, JSON.stringify(days)) as number[],

    flaggedByTest: (runIds) =>
      flaggedResultsOf(flaggedByTestOf.all(JSON.stringify(runIds)) as Row[]),

    resultsAt: (runIds, testIds) =>
      (resultsAtOf.all(JSON.stringify(runIds.map((runId, i) => [runId, testIds[i]]))) as Row[]).map(
        resultOf,
      ),

    tests: (projectId, ids) => (testsOf.all(projectId, JSON.stringify(ids)) as Row[]).map(testOf),

    findTest(projectId, key) {
      const row = testByKey.get(projectId, key) as Row | undefined;
      return row && testOf(row);
    },

    searchTests: (projectId, text) =>
      search.all({ project: projectId, text: containsPattern(text) }) as number[],

    history: (testId, limit) => (historyOf.all(testId, limit) as Row[]).map(resultOf),

    messages: (ids) =>
      new Map(
        (messagesOf.all(JSON.stringify(ids)) as { id: number; text: string }[]).map((m) => [
          m.id,
          m.text,
        ]),
      ),

    branches: (projectId) => branchesOf.all(projectId) as { branch: string; runs: number }[],

    // Writes of the group commit: each one's statements commit together.
    quarantine(projectId, entry) {
      const added =
        addQuarantine.run(
          projectId,
          entry.testKey,
          entry.reason,
          entry.createdAt,
          entry.automatic ? 1 : 0,
        ).changes > 0;
      if (added) endRelease.run(projectId, entry.testKey);
      return added;
    },

    unquarantine(projectId, testKey, releasedAt) {
      const removed = removeQuarantine.run(projectId, testKey).changes > 0;
      if (removed) release.run(projectId, testKey, releasedAt);
      return removed;
    },

    releases: (projectId) => releasesOf(releasesOfProject.all(projectId) as Row[]),

    quarantined: (projectId) => (quarantineOfProject.all(projectId) as Row[]).map(quarantineOf),

    autoQuarantineScore: (projectId) =>
      (scoreOf.get(projectId) as number | null | undefined) ?? null,

    setAutoQuarantineScore: (projectId, score) => {
      setScore.run(projectId, score);
    },

    flakyKnown: (projectId) => ({
      check: (checkOf.get(projectId) as number | null | undefined) ?? null,
      testIds: knownOf.all(projectId) as number[],
    }),

    takeFlakyCheck(projectId, check, known, { at, testIds }) {
      if (takeCheck.run(projectId, check).changes === 0) return false;
      forgetKnown.run(projectId);
      for (const testId of known) know.run(projectId, testId);
      for (const testId of testIds) news.run(projectId, at, testId);
      return true;
    },
  };
}
