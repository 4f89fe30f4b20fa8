import type postgres from 'postgres';
import {
  type EventPageRow,
  eventPage,
  type MetricPageRow,
  metricPage,
  NO_CURSOR,
} from '../record-pages.js';
import type {
  AppendResult,
  IdempotencyClaim,
  NewRecord,
  RecordFilter,
  RecordRepository,
} from '../storage.js';
import { integerArray, type Sql } from './pg-database.js';
import { type NewJob, outboxInsert, outboxNotify } from './pg-outbox.js';
import { branchesInsert, seriesValues } from './pg-stats.js';

/** One append: the record, and the Idempotency-Key claim to store with it. */
export interface Append {
  record: NewRecord;
  claim: IdempotencyClaim | undefined;
}

/** What the statement reads back of each claim: whether it was new, else the first answer. */
interface ClaimRow {
  n: number;
  fresh: boolean;
  fingerprint: string;
  response: string;
}

/**
 * Stores appends with ONE statement of data-modifying CTEs (PostgreSQL runs each of them once,
 * whether the final SELECT reads it or not): the Idempotency-Key claims first, then the events,
 * the metrics with their series, the notification jobs and the branches of the appends that had
 * no claim or whose claim was new (an append whose key already had an answer stores nothing and
 * gets that answer). The records keep the appends' order in `seq`. At most one claim per
 * (account, key) in one call. The tables' triggers queue the records for the statistics fold
 * (migration 3, pg-stats-fold.ts).
 *
 * `sql` is a transaction or the pool. On the pool the statement is a transaction of its own,
 * which PostgreSQL commits (with synchronous_commit on) before it answers, and postgres.js
 * resolves a query only at that answer (ReadyForQuery): a resolved append is a durable one, for
 * one round trip where BEGIN, the writes and COMMIT took three.
 */
export async function appendAll(
  sql: Sql,
  appends: readonly Append[],
  /** Which of the series rows of a key this statement adds to (see the migration). */
  shard: number,
  /** The time to store for a record made at `t` (called in storage order). */
  stamp: (t: number) => number,
): Promise<AppendResult[]> {
  // `n` is the append's place: it orders the inserts and says which appends a new claim keeps.
  // Every append is stamped, kept or not (which is known only once the statement has run): a
  // replayed one may lift the time of those after it in the group to its own, all of them times
  // of this process's clock taken within the same few milliseconds.
  const records = appends.map(({ record }): NewRecord => {
    const createdAt = stamp(record.row.createdAt);
    return record.kind === 'event'
      ? { ...record, row: { ...record.row, createdAt } }
      : { ...record, row: { ...record.row, createdAt } };
  });
  const claims = appends.flatMap(({ claim }, n) =>
    claim ? [{ n, a: claim.accountId, k: claim.key, f: claim.fingerprint, r: claim.response }] : [],
  );
  const unclaimed = appends.flatMap(({ claim }, n) => (claim ? [] : [n]));
  const rows = await sql<
    (ClaimRow | { n: null })[]
  >`${statement(sql, records, claims, unclaimed, shard)}`;
  const results: AppendResult[] = appends.map(() => ({ stored: true }));
  for (const row of rows) {
    if (row.n !== null && !row.fresh) {
      results[row.n] = {
        stored: false,
        earlier: { fingerprint: row.fingerprint, response: row.response },
      };
    }
  }
  return results;
}

const json = (rows: readonly object[]) => JSON.stringify(rows);

/**
 * The statement, its parts in a fixed order. Claims are inserted in key order, and series and
 * branch rows upserted in key order, so that statements running at once never wait on each other
 * in a cycle.
 */
function statement(
  sql: Sql,
  records: readonly NewRecord[],
  claims: readonly { n: number; a: string; k: string; f: string; r: string }[],
  unclaimed: readonly number[],
  shard: number,
) {
  const events = records.flatMap((r, n) =>
    r.kind === 'event'
      ? [
          {
            n,
            id: r.row.id,
            project_id: r.row.projectId,
            event_type: r.row.eventType,
            description: r.row.description,
            payload: r.row.payload,
            color: r.row.color,
            created_at: r.row.createdAt,
            branch: r.row.branch,
            status: r.row.status,
          },
        ]
      : [],
  );
  const metrics = records.flatMap((r, n) =>
    r.kind === 'metric'
      ? [
          {
            n,
            id: r.row.id,
            project_id: r.row.projectId,
            payload: r.row.payload,
            created_at: r.row.createdAt,
            branch: r.row.branch,
          },
        ]
      : [],
  );
  const jobs = records.flatMap((r, n): (NewJob & { n: number })[] =>
    r.kind === 'event'
      ? [
          ...(r.notification ? [{ n, job: r.notification, eventId: r.row.id }] : []),
          // Not tied to the event: get-events shows the chatWebhook's state only.
          ...(r.channelJobs ?? []).map((job) => ({ n, job, eventId: undefined })),
        ]
      : [],
  );
  // A key already taken keeps its answer, and RETURNING reads it back: a plain SELECT in this
  // statement would miss an answer another transaction committed after the statement began
  // (ON CONFLICT waits for it). The no-op update is what makes RETURNING give the taken rows;
  // xmax = 0 tells a row this statement inserted.
  const parts = [
    sql`claims AS (
      SELECT * FROM json_to_recordset(${json(claims)}::text::json)
             AS c(n int, a text, k text, f text, r text))`,
    sql`claim_rows AS (
      INSERT INTO idempotency_keys (account_id, key, fingerprint, response, created_at)
      SELECT a, k, f, r, ${Date.now()} FROM claims
       ORDER BY a, k
      ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = idempotency_keys.fingerprint
      RETURNING account_id, key, xmax = 0 AS fresh, fingerprint, response)`,
    sql`claimed AS (
      SELECT claims.n, claim_rows.fresh, claim_rows.fingerprint, claim_rows.response
        FROM claims JOIN claim_rows ON claim_rows.account_id = claims.a AND claim_rows.key = claims.k)`,
    sql`kept AS (
      SELECT n FROM claimed WHERE fresh
      UNION ALL
      SELECT n FROM unnest(${integerArray(unclaimed)}::int[]) AS n)`,
  ];
  if (events.length > 0) {
    parts.push(sql`stored_events AS (
      INSERT INTO events
             (id, project_id, event_type, description, payload, color, created_at, branch, status)
      SELECT id, project_id, event_type, description, payload, color, created_at, branch, status
        FROM json_to_recordset(${json(events)}::text::json) AS r(n int, id text,
             project_id text, event_type text, description text, payload text, color int,
             created_at bigint, branch text, status text)
       WHERE n IN (SELECT n FROM kept)
       ORDER BY n)`);
  }
  if (metrics.length > 0) {
    parts.push(sql`stored_metrics AS (
      INSERT INTO metrics (id, project_id, payload, created_at, branch)
      SELECT id, project_id, payload, created_at, branch
        FROM json_to_recordset(${json(metrics)}::text::json) AS r(n int, id text,
             project_id text, payload text, created_at bigint, branch text)
       WHERE n IN (SELECT n FROM kept)
       ORDER BY n
      RETURNING seq, id)`);
    // Summed per key over the metrics stored; the last value is the latest record's (on equal
    // times, the later one in storage order), and the series takes that record's seq.
    parts.push(sql`stored_series AS (
      INSERT INTO series (project_id, key, shard, count, last_at, last_seq, last_value)
      SELECT s.p, s.k, ${shard}, count(*), max(s.t),
             (array_agg(m.seq ORDER BY s.t DESC, m.seq DESC))[1],
             (array_agg(s.v ORDER BY s.t DESC, m.seq DESC))[1]
        FROM json_to_recordset(${json(seriesValues(records))}::text::json)
             AS s(p text, k text, t bigint, v double precision, id text)
        JOIN stored_metrics m ON m.id = s.id
       GROUP BY s.p, s.k
       ORDER BY s.p, s.k
      ON CONFLICT (project_id, key, shard) DO UPDATE SET
        count = series.count + excluded.count,
        last_value = CASE WHEN (excluded.last_at, excluded.last_seq) > (series.last_at, series.last_seq)
                          THEN excluded.last_value ELSE series.last_value END,
        last_seq = CASE WHEN (excluded.last_at, excluded.last_seq) > (series.last_at, series.last_seq)
                        THEN excluded.last_seq ELSE series.last_seq END,
        last_at = GREATEST(series.last_at, excluded.last_at))`);
  }
  if (jobs.length > 0) {
    parts.push(sql`stored_jobs AS (${outboxInsert(sql, jobs, sql`n IN (SELECT n FROM kept)`)})`);
  }
  const branches = branchesInsert(sql, records, sql`n IN (SELECT n FROM kept)`);
  if (branches) parts.push(sql`stored_branches AS (${branches})`);
  const ctes = parts.reduce((all, part) => sql`${all}, ${part}`);
  // One row at least, so that the NOTIFY of new jobs runs once; it is delivered with the commit,
  // as enqueueJobs' is (a job not kept wakes the workers for nothing, which they allow for).
  const once = jobs.length > 0 ? outboxNotify(sql) : sql`SELECT 1`;
  return sql`WITH ${ctes}
    SELECT claimed.n, claimed.fresh, claimed.fingerprint, claimed.response
      FROM (${once}) AS once LEFT JOIN claimed ON true`;
}

/** The filters that are set, as conditions on events `e`. */
function eventConditions(sql: Sql, filter: RecordFilter) {
  const parts = [];
  if (filter.eventType !== undefined) parts.push(sql`AND e.event_type = ${filter.eventType}`);
  if (filter.status !== undefined) parts.push(sql`AND e.status = ${filter.status}`);
  if (filter.branch !== undefined) parts.push(sql`AND e.branch = ${filter.branch}`);
  if (filter.from !== undefined) parts.push(sql`AND e.created_at >= ${filter.from}`);
  if (filter.to !== undefined) parts.push(sql`AND e.created_at < ${filter.to}`);
  return joined(sql, parts);
}

/** The same on metrics `m`: they have no type or status. */
function metricConditions(sql: Sql, filter: RecordFilter) {
  const parts = [];
  if (filter.branch !== undefined) parts.push(sql`AND m.branch = ${filter.branch}`);
  if (filter.from !== undefined) parts.push(sql`AND m.created_at >= ${filter.from}`);
  if (filter.to !== undefined) parts.push(sql`AND m.created_at < ${filter.to}`);
  return joined(sql, parts);
}

const joined = (sql: Sql, parts: postgres.PendingQuery<postgres.Row[]>[]) =>
  parts.reduce((all, part) => sql`${all} ${part}`, sql``);

/**
 * Events and metrics read back newest first by project, by (time, seq) on the (project_id,
 * created_at) indexes: an imported record is listed at its time. `append` is how this repository stores
 * (grouped with other appends through the pool, or in the caller's transaction).
 */
export function pgRecords(
  sql: Sql,
  append: (record: NewRecord, claim: IdempotencyClaim | undefined) => Promise<AppendResult>,
  importBatch: (records: readonly NewRecord[]) => Promise<void>,
): RecordRepository {
  return {
    append: (record, claim) => append(record, claim),
    importBatch,

    // On metrics_by_time / events_by_time: imported rows are found by time as any other.
    async storedIds(projectId, kind, from, to) {
      const rows =
        kind === 'event'
          ? await sql<{ id: string }[]>`SELECT id FROM events WHERE project_id = ${projectId}
              AND created_at >= ${from} AND created_at <= ${to}`
          : await sql<{ id: string }[]>`SELECT id FROM metrics WHERE project_id = ${projectId}
              AND created_at >= ${from} AND created_at <= ${to}`;
      return rows.map((row) => row.id);
    },

    async events(projectId, filter, limit, before = NO_CURSOR) {
      const rows = await sql<EventPageRow[]>`
        SELECT e.seq, e.id, e.project_id AS "projectId", e.event_type AS "eventType",
               e.description, e.payload, e.color, e.created_at AS "createdAt",
               o.status AS "notificationStatus", o.attempts AS "notificationAttempts",
               o.last_error AS "notificationError"
          FROM events e LEFT JOIN outbox o ON o.event_id = e.id
         WHERE e.project_id = ${projectId} AND e.created_at <= ${before.at}
               AND (e.created_at, e.seq) < (${before.at}, ${before.seq})
               ${eventConditions(sql, filter)}
         ORDER BY e.created_at DESC, e.seq DESC LIMIT ${limit + 1}`;
      return eventPage(rows, limit);
    },

    async metrics(projectId, filter, limit, before = NO_CURSOR) {
      const rows = await sql<MetricPageRow[]>`
        SELECT m.seq, m.id, m.project_id AS "projectId", m.payload, m.created_at AS "createdAt"
          FROM metrics m
         WHERE m.project_id = ${projectId} AND m.created_at <= ${before.at}
               AND (m.created_at, m.seq) < (${before.at}, ${before.seq})
               ${metricConditions(sql, filter)}
         ORDER BY m.created_at DESC, m.seq DESC LIMIT ${limit + 1}`;
      return metricPage(rows, limit);
    },
  };
}
