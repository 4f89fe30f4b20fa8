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
import type { Sql } from './pg-database.js';
import { claimAll } from './pg-idempotency.js';
import { type NewJob, outboxInsert, outboxNotify } from './pg-outbox.js';
import { branchesInsert, seriesDeltas } from './pg-stats.js';

/** One append: the record, and the Idempotency-Key claim to store with it. */
export interface Append {
  record: NewRecord;
  claim: IdempotencyClaim | undefined;
}

/**
 * Stores appends: the Idempotency-Key claims first (an append whose key already has an answer
 * stores nothing and gets that answer), then the events, metrics, notification jobs, series keys
 * and branches of the others, all in ONE statement (writeRecords). The records keep the appends'
 * order in `seq`. At most one claim per (account, key) in one call.
 *
 * `sql` is a transaction, or (only for appends without claims) the pool: the one statement is
 * then a transaction of its own, which PostgreSQL commits (with synchronous_commit on) before it
 * answers, and postgres.js resolves a query only at that answer (ReadyForQuery), so a resolved
 * append is a durable one, one round trip instead of BEGIN, the writes and COMMIT.
 */
export async function appendAll(
  sql: Sql,
  appends: readonly Append[],
  /** Which of the series rows of a key this transaction adds to (see the migration). */
  shard: number,
  /** The time to store for a record made at `t` (called in storage order). */
  stamp: (t: number) => number,
): Promise<AppendResult[]> {
  const results: AppendResult[] = appends.map(() => ({ stored: true }));
  const claimed = appends.flatMap((append, i) =>
    append.claim ? [[i, append.claim] as const] : [],
  );
  const answers = await claimAll(
    sql,
    claimed.map(([, claim]) => claim),
  );
  answers.forEach((earlier, j) => {
    if (earlier)
      results[(claimed[j] as readonly [number, IdempotencyClaim])[0]] = { stored: false, earlier };
  });
  const records = appends
    .filter((_, i) => results[i]?.stored)
    .map(({ record }): NewRecord => {
      const createdAt = stamp(record.row.createdAt);
      return record.kind === 'event'
        ? { ...record, row: { ...record.row, createdAt } }
        : { ...record, row: { ...record.row, createdAt } };
    });
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
  const jobs = records.flatMap((r): NewJob[] =>
    r.kind === 'event' && r.notification ? [{ job: r.notification, eventId: r.row.id }] : [],
  );
  await writeRecords(sql, records, events, metrics, jobs, shard);
  return results;
}

/**
 * The group's writes as one statement of data-modifying CTEs (PostgreSQL runs each of them once,
 * whether the final SELECT reads it or not), in a fixed order: events, metrics with their series
 * (which take the seq of the metric holding their last value), outbox jobs, branches. Every group
 * locks series and branch rows in key order, so groups committing at once never wait on each
 * other in a cycle.
 */
async function writeRecords(
  sql: Sql,
  records: readonly NewRecord[],
  events: readonly object[],
  metrics: readonly object[],
  jobs: readonly NewJob[],
  shard: number,
): Promise<void> {
  const parts = [];
  if (events.length > 0) {
    parts.push(sql`stored_events AS (
      INSERT INTO events
             (id, project_id, event_type, description, payload, color, created_at, branch, status)
      SELECT id, project_id, event_type, description, payload, color, created_at, branch, status
        FROM json_to_recordset(${JSON.stringify(events)}::text::json) AS r(n int, id text,
             project_id text, event_type text, description text, payload text, color int,
             created_at bigint, branch text, status text)
       ORDER BY n)`);
  }
  if (metrics.length > 0) {
    parts.push(sql`stored_metrics AS (
      INSERT INTO metrics (id, project_id, payload, created_at, branch)
      SELECT id, project_id, payload, created_at, branch
        FROM json_to_recordset(${JSON.stringify(metrics)}::text::json) AS r(n int, id text,
             project_id text, payload text, created_at bigint, branch text)
       ORDER BY n
      RETURNING seq, id)`);
    parts.push(sql`stored_series AS (
      INSERT INTO series (project_id, key, shard, count, last_at, last_seq, last_value)
      SELECT s.p, s.k, ${shard}, s.c, s.t, stored_metrics.seq, s.v
        FROM json_to_recordset(${JSON.stringify(seriesDeltas(records))}::text::json)
             AS s(p text, k text, c bigint, t bigint, v double precision, id text)
        JOIN stored_metrics ON stored_metrics.id = s.id
       ORDER BY s.p, s.k
      ON CONFLICT (project_id, key, shard) DO UPDATE SET
        count = series.count + excluded.count,
        last_value = CASE WHEN (excluded.last_at, excluded.last_seq) > (series.last_at, series.last_seq)
                          THEN excluded.last_value ELSE series.last_value END,
        last_seq = CASE WHEN (excluded.last_at, excluded.last_seq) > (series.last_at, series.last_seq)
                        THEN excluded.last_seq ELSE series.last_seq END,
        last_at = GREATEST(series.last_at, excluded.last_at))`);
  }
  if (jobs.length > 0) parts.push(sql`stored_jobs AS (${outboxInsert(sql, jobs)})`);
  const branches = branchesInsert(sql, records);
  if (branches) parts.push(sql`stored_branches AS (${branches})`);
  if (parts.length === 0) return;
  const ctes = parts.reduce((all, part) => sql`${all}, ${part}`);
  // The NOTIFY of new jobs is delivered with the commit, as enqueueJobs' is.
  await sql`WITH ${ctes} ${jobs.length > 0 ? outboxNotify(sql) : sql`SELECT 1`}`;
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
 * Events and metrics read back newest first by project. `append` is how this repository stores
 * (grouped with other appends through the pool, or in the caller's transaction).
 */
export function pgRecords(
  sql: Sql,
  append: (record: NewRecord, claim: IdempotencyClaim | undefined) => Promise<AppendResult>,
): RecordRepository {
  return {
    append: (record, claim) => append(record, claim),

    async events(projectId, filter, limit, before = NO_CURSOR) {
      const rows = await sql<EventPageRow[]>`
        SELECT e.seq, e.id, e.project_id AS "projectId", e.event_type AS "eventType",
               e.description, e.payload, e.color, e.created_at AS "createdAt",
               o.status AS "notificationStatus", o.attempts AS "notificationAttempts",
               o.last_error AS "notificationError"
          FROM events e LEFT JOIN outbox o ON o.event_id = e.id
         WHERE e.project_id = ${projectId} AND e.seq < ${before}
               ${eventConditions(sql, filter)}
         ORDER BY e.seq DESC LIMIT ${limit + 1}`;
      return eventPage(rows, limit);
    },

    async metrics(projectId, filter, limit, before = NO_CURSOR) {
      const rows = await sql<MetricPageRow[]>`
        SELECT m.seq, m.id, m.project_id AS "projectId", m.payload, m.created_at AS "createdAt"
          FROM metrics m
         WHERE m.project_id = ${projectId} AND m.seq < ${before}
               ${metricConditions(sql, filter)}
         ORDER BY m.seq DESC LIMIT ${limit + 1}`;
      return metricPage(rows, limit);
    },
  };
}
