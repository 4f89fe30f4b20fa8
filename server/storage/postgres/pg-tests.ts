import { runCountsChange } from '../../domain/tests/run-counts.js';
import { type DaySums, dayOf } from '../../domain/tests/test-days.js';
import { EVERY_BRANCH } from '../../domain/tests/test-recent.js';
import { encodeUpkeep, upkeepRows, upkeepTests } from '../../domain/tests/test-upkeep.js';
import type { AppendResult, IdempotencyClaim, StoredAnswer } from '../storage.js';
import type { TestBatch, TestRepository } from '../tests/test-repository.js';
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
import { integerArray, type Sql, type TransactionSql } from './pg-database.js';

type Row = Record<string, unknown>;

// A column's list (a null as an empty item) and the statuses' digits, for both row-per-test reads.
const pgList = (column: string) => `string_agg(coalesce(${column}::text, ''), ',')`;
const PG_DIGITS = "string_agg(status::text, '')";
const PG_AGGREGATED = AGGREGATED_RESULTS(pgList, PG_DIGITS);
const PG_FLAGGED_BY_TEST = FLAGGED_BY_TEST(pgList, PG_DIGITS);
const json = (rows: unknown) => JSON.stringify(rows);

/**
 * A batch in one transaction, a statement per table: the Idempotency-Key claim, the run (its row
 * lock orders concurrent batches of one run), the tests and messages not stored yet (in key
 * order, so that concurrent batches take their locks in the same order), the results, the run's
 * counts.
 */
async function ingestIn(
  tx: TransactionSql,
  { run, results, at }: TestBatch,
  claim: IdempotencyClaim | undefined,
): Promise<AppendResult> {
  if (claim) {
    const fresh = await tx`
      INSERT INTO idempotency_keys (account_id, key, fingerprint, response, created_at)
      VALUES (${claim.accountId}, ${claim.key}, ${claim.fingerprint}, ${claim.response}, ${Date.now()})
      ON CONFLICT DO NOTHING RETURNING 1`;
    if (fresh.length === 0) {
      const [earlier] = await tx<StoredAnswer[]>`
        SELECT fingerprint, response FROM idempotency_keys
         WHERE account_id = ${claim.accountId} AND key = ${claim.key}`;
      return { stored: false, earlier: { ...(earlier as StoredAnswer) } };
    }
  }
  const [prior] = await tx<{ branch: string | null }[]>`
    SELECT branch FROM test_runs WHERE project_id = ${run.projectId} AND key = ${run.key}`;
  const [runRow] = await tx<{ id: number; created_at: string }[]>`
    INSERT INTO test_runs (project_id, key, build_id, attempt, commit_sha, branch, pull_request,
                           event_id, created_at)
    VALUES (${run.projectId}, ${run.key}, ${run.buildId}, ${run.attempt}, ${run.commit},
            ${run.branch}, ${run.pullRequest}, ${run.eventId}, ${at})
    ON CONFLICT (project_id, key) DO UPDATE SET
      commit_sha = coalesce(test_runs.commit_sha, excluded.commit_sha),
      branch = coalesce(test_runs.branch, excluded.branch),
      pull_request = coalesce(test_runs.pull_request, excluded.pull_request),
      event_id = coalesce(test_runs.event_id, excluded.event_id)
    RETURNING id, created_at`;
  const runId = Number(runRow?.id);
  // The results' partition key (pg-partitions.ts): the run's time, or, for a run whose results
  // were stored before migration 24 (0 there), theirs, so that a run's results share one key.
  const [keyRow] = await tx<{ at: string }[]>`
    SELECT coalesce((SELECT created_at FROM test_results WHERE run_id = ${runId} LIMIT 1),
                    ${runRow?.created_at ?? at}::bigint) AS at`;
  const resultsAt = Number(keyRow?.at ?? at);

  const tests = [...new Map(results.map((r) => [r.test.key, r.test])).values()].sort((a, b) =>
    a.key < b.key ? -1 : 1,
  );
  await tx`
    INSERT INTO test_cases (project_id, key, suite, classname, name, file, line, first_seen)
    SELECT ${run.projectId}, t.key, t.suite, t.classname, t.name, t.file, t.line, ${at}
      FROM json_to_recordset(${json(tests)}::text::json)
        AS t(key text, suite text, classname text, name text, file text, line int)
    ON CONFLICT (project_id, key) DO NOTHING`;
  const testIds = new Map(
    (
      await tx<{ id: number; key: string }[]>`
        SELECT id, key FROM test_cases WHERE project_id = ${run.projectId}
           AND key = ANY(${tests.map((t) => t.key)}::text[])`
    ).map((row) => [row.key, Number(row.id)]),
  );

  const texts = [
    ...new Set(results.flatMap((r) => (r.message === null ? [] : [r.message]))),
  ].sort();
  const messageIds = new Map<string, number>();
  if (texts.length > 0) {
    await tx`
      INSERT INTO test_messages (project_id, text)
      SELECT ${run.projectId}, t FROM unnest(${texts}::text[]) AS t
      ON CONFLICT (project_id, text) DO NOTHING`;
    for (const row of await tx<{ id: number; text: string }[]>`
      SELECT id, text FROM test_messages WHERE project_id = ${run.projectId}
         AND text = ANY(${texts}::text[])`) {
      messageIds.set(row.text, Number(row.id));
    }
  }

  const rows = results.map((r) => [
    testIds.get(r.test.key),
    r.status,
    r.durationMs,
    r.attempts,
    r.message === null ? null : (messageIds.get(r.message) ?? null),
  ]);
  // The batch's tests already in the run (a later batch): their day rows take their merge's change.
  // A join, not `test_id = ANY(...)`: the planner filtered every result of the run against the
  // 5,000 ids one by one (2.2 s for the 20th batch of a 100,000-case run; BENCHMARKS.md, issue 25).
  const earlier =
    prior === undefined
      ? []
      : await tx<{ testId: string; status: number; durationMs: number; attempts: number }[]>`
          SELECT r.test_id AS "testId", r.status, r.duration_ms AS "durationMs", r.attempts
            FROM unnest(${integerArray(rows.map((r) => r[0] as number))}::bigint[]) AS b(test_id)
            JOIN test_results r ON r.run_id = ${runId} AND r.created_at = ${resultsAt}
                               AND r.test_id = b.test_id`;
  const merged = await tx<
    { testId: string; status: number; attempts: number; durationMs: number }[]
  >`
    INSERT INTO test_results (run_id, test_id, status, duration_ms, attempts, message_id, created_at)
    SELECT ${runId}, r.t, r.s, r.d, r.a, r.m, ${resultsAt}::bigint
      FROM json_to_recordset(${json(rows.map(([t, s, d, a, m]) => ({ t, s, d, a, m })))}::text::json)
        AS r(t bigint, s smallint, d int, a smallint, m bigint)
    ON CONFLICT ON CONSTRAINT test_results_pkey DO UPDATE SET
      status = ${tx.unsafe(MERGE_STATUS)},
      duration_ms = test_results.duration_ms + excluded.duration_ms,
      attempts = test_results.attempts + excluded.attempts,
      message_id = coalesce(test_results.message_id, excluded.message_id)
    RETURNING test_id AS "testId", status, attempts, duration_ms AS "durationMs"`;
  const before = new Map(earlier.map((r) => [Number(r.testId), r]));
  const changes = merged.map((r) => ({
    testId: Number(r.testId),
    before: before.get(Number(r.testId)),
    after: r,
  }));
  const counts = runCountsChange(changes);
  await tx`
    UPDATE test_runs SET passed = passed + ${counts.passed}, failed = failed + ${counts.failed},
      errors = errors + ${counts.errors}, skipped = skipped + ${counts.skipped},
      flaky = flaky + ${counts.flaky}, duration_ms = duration_ms + ${counts.durationMs}
     WHERE id = ${runId}`;
  // A run that names its branch only now: its earlier results join that branch's rows too.
  const named =
    prior !== undefined && prior.branch === null && run.branch !== null
      ? (
          await tx<{ testId: string; status: number; attempts: number; durationMs: number }[]>`
            SELECT test_id AS "testId", status, attempts, duration_ms AS "durationMs"
              FROM test_results WHERE run_id = ${runId}`
        ).map((r) => ({ testId: Number(r.testId), after: r }))
      : null;
  // The summaries and day rows are kept behind the batches (domain/tests/test-upkeep.ts).
  const work = encodeUpkeep(changes, named);
  await tx`
    INSERT INTO test_upkeep (project_id, run_id, branch, day, work)
    VALUES (${run.projectId}, ${runId}, ${run.branch}, ${dayOf(Number(runRow?.created_at ?? at))},
            ${work})`;
  return { stored: true };
}

/** The oldest queued upkeep (of a project, or of any) applied and removed (TestRepository). */
async function applyUpkeepIn(tx: TransactionSql, projectId: string | undefined): Promise<boolean> {
  const [row] = await tx<Row[]>`
    DELETE FROM test_upkeep WHERE id = (
      SELECT id FROM test_upkeep ${projectId === undefined ? tx`` : tx`WHERE project_id = ${projectId}`}
       ORDER BY id LIMIT 1)
    RETURNING ${tx.unsafe(UPKEEP_COLUMNS)}`;
  if (row === undefined) return false;
  const entry = upkeepOf(row);
  const { runId } = entry;
  const [exists] = await tx`SELECT 1 FROM test_runs WHERE id = ${runId}`;
  // A run removed since (retention) leaves nothing to keep.
  if (exists === undefined) return true;
  const tests = upkeepTests(entry);
  const results = await tx<{ testId: string; status: number; attempts: number }[]>`
    SELECT r.test_id AS "testId", r.status, r.attempts FROM test_results r ${
      tests === null
        ? tx`WHERE r.run_id = ${runId}`
        : tx`JOIN unnest(${integerArray(tests)}::bigint[]) AS b(test_id)
               ON r.run_id = ${runId} AND r.test_id = b.test_id`
    }`;
  const changes = results.map((r) => ({ ...r, testId: Number(r.testId) }));
  const branches = entry.branch === null ? [EVERY_BRANCH] : [EVERY_BRANCH, entry.branch];
  const stored = await tx<{ testId: string; branch: string; lastRun: string; recent: string }[]>`
    SELECT test_id AS "testId", branch, last_run AS "lastRun", recent FROM test_summaries
     WHERE test_id = ANY(${integerArray(changes.map((c) => c.testId))}::bigint[])
       AND branch = ANY(${branches}::text[])`;
  const rows = upkeepRows(
    entry,
    stored.map((row) => ({ ...row, testId: Number(row.testId), lastRun: Number(row.lastRun) })),
    changes,
  );
  await tx`
    INSERT INTO test_summaries (project_id, test_id, branch, last_run, recent)
    SELECT ${entry.projectId}, r.t, r.b, r.l, r.r
      FROM json_to_recordset(${json(
        rows.summaries.map((row) => ({
          t: row.testId,
          b: row.branch,
          l: row.lastRun,
          r: row.recent,
        })),
      )}::text::json) AS r(t bigint, b text, l bigint, r text)
    ON CONFLICT (test_id, branch) DO UPDATE SET
      last_run = excluded.last_run, recent = excluded.recent`;
  const days = rows.days.map((r) => ({
    b: r.branch,
    t: r.testId,
    n: r.runs,
    p: r.passed,
    f: r.failed,
    s: r.skipped,
    r: r.retried,
    h: r.bins,
  }));
  await tx`
    INSERT INTO test_days (project_id, branch, day, test_id, runs, passed, failed, skipped,
                           retried, bins)
    SELECT ${entry.projectId}, d.b, ${entry.day}, d.t, d.n, d.p, d.f, d.s, d.r, d.h
      FROM json_to_recordset(${json(days)}::text::json)
        AS d(b text, t bigint, n int, p int, f int, s int, r int, h text)
    ON CONFLICT (project_id, branch, day, test_id) DO UPDATE SET
      runs = test_days.runs + excluded.runs, passed = test_days.passed + excluded.passed,
      failed = test_days.failed + excluded.failed, skipped = test_days.skipped + excluded.skipped,
      retried = test_days.retried + excluded.retried,
      bins = test_bins_add(test_days.bins, excluded.bins)`;
  return true;
}

/** Tests as data on PostgreSQL (storage/tests/test-repository.ts); `sql` a pool or a transaction. */
export function pgTests(sql: Sql): TestRepository {
  return {
    ingest: (batch, claim) =>
      'savepoint' in sql
        ? ingestIn(sql as unknown as TransactionSql, batch, claim)
        : (sql.begin((tx) => ingestIn(tx, batch, claim)) as Promise<AppendResult>),

    applyUpkeep: (projectId) =>
      'savepoint' in sql
        ? applyUpkeepIn(sql as unknown as TransactionSql, projectId)
        : (sql.begin((tx) => applyUpkeepIn(tx, projectId)) as Promise<boolean>),

    async upkeepPending(projectId) {
      const [row] = await sql`
        SELECT 1 FROM test_upkeep
         ${projectId === undefined ? sql`` : sql`WHERE project_id = ${projectId}`} LIMIT 1`;
      return row !== undefined;
    },

    async runs(projectId, filter, limit) {
      const rows = await sql<Row[]>`
        SELECT * FROM (
          SELECT ${sql.unsafe(RUN_COLUMNS)} FROM test_runs
           WHERE project_id = ${projectId}
             AND (${filter.branch ?? null}::text IS NULL OR branch = ${filter.branch ?? null})
             AND created_at >= ${filter.from ?? 0} AND created_at < ${filter.to ?? Number.MAX_SAFE_INTEGER}
           ORDER BY id DESC LIMIT ${limit}) AS newest
         ORDER BY id`;
      return rows.map(runOf);
    },

    async runsById(projectId, ids) {
      const rows = await sql<Row[]>`
        SELECT ${sql.unsafe(RUN_COLUMNS)} FROM test_runs
         WHERE project_id = ${projectId} AND id = ANY(${integerArray(ids)}::bigint[]) ORDER BY id`;
      return rows.map(runOf);
    },

    async results(runIds) {
      const rows = await sql<Row[]>`
        SELECT ${sql.unsafe(RESULT_COLUMNS)} FROM test_results
         WHERE run_id = ANY(${integerArray(runIds)}::bigint[]) ORDER BY run_id, test_id`;
      return rows.map(resultOf);
    },

    async failures(runIds) {
      const rows = await sql<Row[]>`
        SELECT ${sql.unsafe(RESULT_COLUMNS)} FROM test_results
         WHERE run_id = ANY(${integerArray(runIds)}::bigint[]) AND status IN (1, 2)
         ORDER BY run_id, test_id`;
      return rows.map(resultOf);
    },

    async flagged(runIds) {
      const rows = await sql<{ testId: number }[]>`
        SELECT DISTINCT test_id AS "testId" FROM test_results
         WHERE run_id = ANY(${integerArray(runIds)}::bigint[]) AND ${sql.unsafe(FLAGGED)}
         ORDER BY test_id`;
      return rows.map((row) => Number(row.testId));
    },

    async resultsOfTests(testIds, firstRunId, lastRunId) {
      // A row per test (test-rows.ts). No ORDER BY in the aggregates: sorting each group again
      // cost 1 s of 1.2 at 300,000 results; the lists keep one order among them, which is all
      // the analysis needs (it orders each test's results by run itself).
      const rows = await sql<Row[]>`
        SELECT ${sql.unsafe(PG_AGGREGATED)} FROM test_results
         WHERE test_id = ANY(${integerArray(testIds)}::bigint[])
           AND run_id BETWEEN ${firstRunId} AND ${lastRunId}
         GROUP BY test_id ORDER BY test_id`;
      return aggregatedResults(rows);
    },

    async ranTests(projectId, runIds) {
      const first = runIds[0] ?? 0;
      const last = runIds.at(-1) ?? 0;
      // When the runs are all of the project's between the first and the last (no branch
      // asked, or one branch alone), a result in that id range is in them: the probe skips the
      // list, which PostgreSQL otherwise prepares again for each of the 20,000 probes.
      const [between] = await sql<{ n: string }[]>`
        SELECT count(*) AS n FROM test_runs
         WHERE project_id = ${projectId} AND id BETWEEN ${first} AND ${last}`;
      const every = Number(between?.n) === runIds.length;
      const rows = await sql<{ id: string }[]>`
        SELECT c.id FROM test_cases c WHERE c.project_id = ${projectId} AND EXISTS (
          SELECT 1 FROM test_results r WHERE r.test_id = c.id
             AND r.run_id BETWEEN ${first} AND ${last}
             ${every ? sql`` : sql`AND r.run_id = ANY(${integerArray(runIds)}::bigint[])`})
         ORDER BY c.id`;
      return rows.map((row) => Number(row.id));
    },

    async runsFrom(projectId, branch, firstRunId) {
      const [row] = await sql<{ n: string }[]>`
        SELECT count(*) AS n FROM test_runs
         WHERE project_id = ${projectId} AND id >= ${firstRunId}
           AND (${branch ?? null}::text IS NULL OR branch = ${branch ?? null})`;
      return Number(row?.n);
    },

    async testsSince(projectId, branch, firstRunId) {
      const rows = await sql<{ id: string }[]>`
        SELECT test_id AS id FROM test_summaries
         WHERE project_id = ${projectId} AND branch = ${branch} AND last_run >= ${firstRunId}
         ORDER BY test_id`;
      return rows.map((row) => Number(row.id));
    },

    async summaries(testIds, branches) {
      const rows = await sql<{ testId: string; branch: string; lastRun: string; recent: string }[]>`
        SELECT test_id AS "testId", branch, last_run AS "lastRun", recent FROM test_summaries
         WHERE test_id = ANY(${integerArray(testIds)}::bigint[])
           AND branch = ANY(${[...branches]}::text[])`;
      return rows.map((row) => ({
        ...row,
        testId: Number(row.testId),
        lastRun: Number(row.lastRun),
      }));
    },

    async daySums(projectId, branch, days, testIds) {
      // Some tests (a page's) their own statement: as `(every OR test_id = ANY(...))` the ids
      // were no index condition, and a page's 50 tests read every test's days (0.56 s at 50 M).
      const some =
        testIds === undefined ? sql`` : sql`AND test_id = ANY(${integerArray(testIds)}::bigint[])`;
      const rows = await sql<
        {
          testId: string;
          runs: string;
          passed: string;
          failed: string;
          skipped: string;
          retried: string;
          bins: string;
        }[]
      >`
        SELECT test_id AS "testId", sum(runs) AS runs, sum(passed) AS passed,
               sum(failed) AS failed, sum(skipped) AS skipped, sum(retried) AS retried,
               coalesce(string_agg(nullif(bins, ''), ','), '') AS bins
          FROM test_days
         WHERE project_id = ${projectId} AND branch = ${branch}
           AND day = ANY(${integerArray(days)}::int[]) ${some}
         GROUP BY test_id`;
      return rows.map(
        (row): DaySums => ({
          testId: Number(row.testId),
          runs: Number(row.runs),
          passed: Number(row.passed),
          failed: Number(row.failed),
          skipped: Number(row.skipped),
          retried: Number(row.retried),
          bins: row.bins,
        }),
      );
    },

    async dayTests(projectId, branch, days) {
      const rows = await sql<{ id: string }[]>`
        SELECT DISTINCT test_id AS id FROM test_days
         WHERE project_id = ${projectId} AND branch = ${branch}
           AND day = ANY(${integerArray(days)}::int[])
         ORDER BY test_id`;
      return rows.map((row) => Number(row.id));
    },

    async flaggedByTest(runIds) {
      // A row per test: at 50 M results the range's 70,000 flagged results as rows cost the
      // driver and the collector more than the database's whole read.
      const rows = await sql<Row[]>`
        SELECT ${sql.unsafe(PG_FLAGGED_BY_TEST)} FROM test_results
         WHERE run_id = ANY(${integerArray(runIds)}::bigint[]) AND ${sql.unsafe(FLAGGED)}
         GROUP BY test_id`;
      return flaggedResultsOf(rows);
    },

    async resultsAt(runIds, testIds) {
      const rows = await sql<Row[]>`
        SELECT ${sql.unsafe(RESULT_COLUMNS)}
          FROM unnest(${integerArray(runIds)}::bigint[], ${integerArray(testIds)}::bigint[])
               AS pair(run, test)
          JOIN test_results ON run_id = pair.run AND test_id = pair.test`;
      return rows.map(resultOf);
    },

    async tests(projectId, ids) {
      const rows = await sql<Row[]>`
        SELECT ${sql.unsafe(TEST_COLUMNS)} FROM test_cases
         WHERE project_id = ${projectId} AND id = ANY(${integerArray(ids)}::bigint[]) ORDER BY id`;
      return rows.map(testOf);
    },

    async findTest(projectId, key) {
      const [row] = await sql<Row[]>`
        SELECT ${sql.unsafe(TEST_COLUMNS)} FROM test_cases WHERE project_id = ${projectId} AND key = ${key}`;
      return row && testOf(row);
    },

    async searchTests(projectId, text) {
      const pattern = containsPattern(text);
      const rows = await sql<{ id: number }[]>`
        SELECT id FROM test_cases WHERE project_id = ${projectId}
           AND (lower(suite) LIKE ${pattern} OR lower(coalesce(classname, '')) LIKE ${pattern}
                OR lower(name) LIKE ${pattern} OR lower(coalesce(file, '')) LIKE ${pattern})
         ORDER BY id`;
      return rows.map((row) => Number(row.id));
    },

    async history(testId, limit) {
      const rows = await sql<Row[]>`
        SELECT ${sql.unsafe(RESULT_COLUMNS)} FROM test_results WHERE test_id = ${testId}
         ORDER BY run_id DESC LIMIT ${limit}`;
      return rows.map(resultOf);
    },

    async messages(ids) {
      const rows = await sql<{ id: number; text: string }[]>`
        SELECT id, text FROM test_messages WHERE id = ANY(${integerArray(ids)}::bigint[])`;
      return new Map(rows.map((row) => [Number(row.id), row.text]));
    },

    async branches(projectId) {
      const rows = await sql<{ branch: string; runs: number }[]>`
        SELECT branch, count(*) AS runs FROM test_runs
         WHERE project_id = ${projectId} AND branch IS NOT NULL
         GROUP BY branch ORDER BY branch COLLATE "C"`;
      return rows.map((row) => ({ branch: row.branch, runs: Number(row.runs) }));
    },

    // One statement each: the entry and the release change together.
    async quarantine(projectId, entry) {
      const rows = await sql`
        WITH added AS (
          INSERT INTO test_quarantine (project_id, test_key, reason, created_at, automatic)
          VALUES (${projectId}, ${entry.testKey}, ${entry.reason}, ${entry.createdAt}, ${entry.automatic})
          ON CONFLICT DO NOTHING RETURNING project_id, test_key
        ), ended AS (
          DELETE FROM test_quarantine_releases r USING added
           WHERE r.project_id = added.project_id AND r.test_key = added.test_key
        )
        SELECT 1 FROM added`;
      return rows.length > 0;
    },

    async unquarantine(projectId, testKey, releasedAt) {
      const rows = await sql`
        WITH removed AS (
          DELETE FROM test_quarantine WHERE project_id = ${projectId} AND test_key = ${testKey}
          RETURNING project_id, test_key
        ), released AS (
          INSERT INTO test_quarantine_releases (project_id, test_key, released_at)
          SELECT project_id, test_key, ${releasedAt} FROM removed
          ON CONFLICT (project_id, test_key) DO UPDATE SET released_at = excluded.released_at
        )
        SELECT 1 FROM removed`;
      return rows.length > 0;
    },

    async releases(projectId) {
      return releasesOf(
        await sql<Row[]>`
          SELECT test_key, released_at FROM test_quarantine_releases WHERE project_id = ${projectId}`,
      );
    },

    async quarantined(projectId) {
      const rows = await sql<Row[]>`
        SELECT ${sql.unsafe(QUARANTINE_COLUMNS)} FROM test_quarantine WHERE project_id = ${projectId}
         ORDER BY created_at, test_key COLLATE "C"`;
      return rows.map(quarantineOf);
    },

    async autoQuarantineScore(projectId) {
      const rows = await sql<{ score: number | null }[]>`
        SELECT auto_quarantine_score AS score FROM test_settings WHERE project_id = ${projectId}`;
      return rows[0]?.score ?? null;
    },

    async setAutoQuarantineScore(projectId, score) {
      await sql`
        INSERT INTO test_settings (project_id, auto_quarantine_score) VALUES (${projectId}, ${score})
        ON CONFLICT (project_id) DO UPDATE SET auto_quarantine_score = excluded.auto_quarantine_score`;
    },

    async flakyKnown(projectId) {
      const [settings] = await sql<{ check: string | null }[]>`
        SELECT flaky_check AS check FROM test_settings WHERE project_id = ${projectId}`;
      const known = await sql<{ id: string }[]>`
        SELECT test_id AS id FROM flaky_known WHERE project_id = ${projectId}`;
      const check = settings?.check;
      return {
        check: check === undefined || check === null ? null : Number(check),
        testIds: known.map((row) => Number(row.id)),
      };
    },

    async takeFlakyCheck(projectId, check, known, { at, testIds }) {
      const taken = await sql`
        INSERT INTO test_settings (project_id, flaky_check) VALUES (${projectId}, 1)
        ON CONFLICT (project_id) DO UPDATE
          SET flaky_check = coalesce(test_settings.flaky_check, 0) + 1
         WHERE test_settings.flaky_check IS NOT DISTINCT FROM ${check}::bigint
        RETURNING 1`;
      if (taken.length === 0) return false;
      await sql`DELETE FROM flaky_known WHERE project_id = ${projectId}`;
      await sql`
        INSERT INTO flaky_known (project_id, test_id)
        SELECT ${projectId}, unnest(${integerArray(known)}::bigint[])`;
      await sql`
        INSERT INTO flaky_news (project_id, at, test_id)
        SELECT ${projectId}, ${at}, unnest(${integerArray(testIds)}::bigint[])
        ON CONFLICT DO NOTHING`;
      return true;
    },
  };
}
