import type postgres from 'postgres';
import { seriesOf } from '../../domain/record-facts.js';
import {
  addSeriesSum,
  addSeriesValue,
  emptySeriesSum,
  type SeriesSum,
} from '../../domain/series-sum.js';
import { cellBucketOf, planRange, type ReadPlan } from '../../domain/time-buckets.js';
import type { EventCountCell, NewRecord, SeriesKeyInfo, StatsRepository } from '../storage.js';
import { binsOf } from './pg-cell-writes.js';
import { integerArray, numbersOf, type Sql } from './pg-database.js';
import { pgWorkflowReads } from './pg-workflow-cells.js';

/** Branches listed for a project's filter, at most (as on SQLite). */
const MAX_BRANCHES = 200;

/** A value of a series in a metric record of a group (the record by its id). */
export interface SeriesValue {
  p: string;
  k: string;
  t: number;
  v: number;
  id: string;
}

/** The numeric values of a group's metric records, one row per record and key. */
export function seriesValues(records: readonly NewRecord[]): SeriesValue[] {
  return records.flatMap((record) =>
    record.kind === 'metric'
      ? [...record.series].map(([k, v]) => ({
          p: record.row.projectId,
          k,
          t: record.row.createdAt,
          v,
          id: record.row.id,
        }))
      : [],
  );
}

/**
 * The INSERT adding the records' branches to `branches`, not yet run (undefined: none), in key
 * order, so that statements running at once never wait on each other in a cycle. `where` picks
 * records by their place `n` (all by default).
 */
export function branchesInsert(
  sql: Sql,
  records: readonly NewRecord[],
  where?: postgres.PendingQuery<postgres.Row[]>,
) {
  const rows = records.flatMap(({ row }, n) =>
    row.branch === null ? [] : [{ n, p: row.projectId, b: row.branch }],
  );
  if (rows.length === 0) return undefined;
  return sql`INSERT INTO branches (project_id, branch)
             SELECT DISTINCT p, b FROM json_to_recordset(${JSON.stringify(rows)}::text::json)
                    AS r(n int, p text, b text)
              ${where ? sql`WHERE ${where}` : sql``}
              ORDER BY p, b
             ON CONFLICT DO NOTHING`;
}

/**
 * The plan's spans as two tables of the statement: `spans` (read from cells of their unit) and
 * `edges` (the partial minutes, read from the records), each with its bucket.
 */
function planTables(sql: Sql, plan: ReadPlan) {
  const column = <T>(items: readonly T[], pick: (item: T) => number) =>
    integerArray(items.map(pick));
  return sql`spans AS (
      SELECT * FROM unnest(${column(plan.cells, (s) => s.unit)}::int[],
                           ${column(plan.cells, (s) => s.from)}::bigint[],
                           ${column(plan.cells, (s) => s.to)}::bigint[],
                           ${column(plan.cells, (s) => s.bucket)}::int[]) AS s(unit, f, t, b)),
    edges AS (
      SELECT * FROM unnest(${column(plan.raw, (s) => s.from)}::bigint[],
                           ${column(plan.raw, (s) => s.to)}::bigint[],
                           ${column(plan.raw, (s) => s.bucket)}::int[]) AS e(f, t, b))`;
}

/** A row of seriesData's statement: a bucket's cells, an edge record or a queued one (-1). */
interface SeriesRow {
  bucket: number;
  count: number;
  min: number;
  max: number;
  /** The cells' sums, as a float8[]'s text. */
  sums: string | null;
  lastAt: number;
  seq: number;
  lastValue: number;
  /** The bins of all the cells, and their counts, as two arrays' text (pairs in order). */
  keys: string | null;
  counts: string | null;
  payload: string | null;
}

/** A row of eventData's statement: counts of a bucket, or a queued event (bucket -1). */
interface EventRow extends Omit<EventCountCell, 'bucket'> {
  bucket: number;
  t: number | null;
  status: string | null;
}

/** Counts by statusClass's columns, of the events `e` of each group. */
const STATUS_COUNTS = `count(*) FILTER (WHERE e.status = 'success')::int AS success,
  count(*) FILTER (WHERE e.status = 'failure')::int AS failure,
  count(*) FILTER (WHERE e.status = 'cancelled')::int AS cancelled,
  count(*) FILTER (WHERE e.status IS NULL
                     OR e.status NOT IN ('success', 'failure', 'cancelled'))::int AS other`;

/**
 * Statistics on PostgreSQL. The cells (minute, ten minutes, hour) hold the records folded so far
 * (pg-stats-fold.ts); those still queued are read from the records, all in ONE statement, so that
 * its snapshot sees each record either in the cells or in the queue, never both or neither. The
 * partial minutes at bucket edges are read from the records, as on SQLite. Series keys (summed
 * over their shards) and branches are kept up to date by the ingest statement.
 *
 * Each span (or queue row) is read by a LATERAL subquery ending in OFFSET 0, which keeps the
 * planner from flattening it into a join: each is then one range scan of an index, where the
 * flattened join chose sequential scans of whole tables (19 s for a 30-day series over a million
 * records, against 27 ms).
 */
export function pgStats(sql: Sql): StatsRepository {
  return {
    ...pgWorkflowReads(sql),

    async seriesKeys(projectId, { after, limit }) {
      // Byte order ("C"), as SQLite's BINARY collation, whatever the database's locale.
      return sql<SeriesKeyInfo[]>`
        SELECT key, SUM(count)::bigint AS count, MAX(last_at) AS "lastAt",
               (array_agg(last_value ORDER BY last_at DESC, last_seq DESC))[1] AS "lastValue"
          FROM series WHERE project_id = ${projectId}
               ${after === undefined ? sql`` : sql`AND key COLLATE "C" > ${after}`}
         GROUP BY key ORDER BY key COLLATE "C" LIMIT ${limit}`;
    },

    async seriesKey(projectId, key) {
      const [found] = await sql<SeriesKeyInfo[]>`
        SELECT key, SUM(count)::bigint AS count, MAX(last_at) AS "lastAt",
               (array_agg(last_value ORDER BY last_at DESC, last_seq DESC))[1] AS "lastValue"
          FROM series WHERE project_id = ${projectId} AND key = ${key} GROUP BY key`;
      return found;
    },

    async seriesData(projectId, key, branch, plan) {
      const range = planRange(plan);
      if (!range) return { cells: [], records: [] };
      // Only records whose text holds the key's last part (as JSON writes it) can have the key.
      const part = JSON.stringify(key.split('.').at(-1)).slice(1, -1);
      const records = sql`m.project_id = ${projectId}
        ${branch === undefined ? sql`` : sql`AND m.branch = ${branch}`}
        AND strpos(m.payload, ${part}) > 0`;
      const table = branch === undefined ? sql`series_totals c` : sql`series_cells c`;
      // One row per bucket for its cells (often dozens): counts, minima, maxima and the last
      // value summed here; the sums and the bins of every cell as text, added up in Node in the
      // order of the cells as SQLite's are (PostgreSQL's sum() of float8 fails on an overflow
      // that JavaScript takes as Infinity; summing the bins per bin in SQL took 20 ms more).
      const rows = await sql<SeriesRow[]>`
        WITH ${planTables(sql, plan)},
        found AS (
          SELECT s.b, c.* FROM spans s CROSS JOIN LATERAL (
            SELECT c.unit, c.start, c.count, c.min, c.max, c.sum, c.last_at, c.last_seq,
                   c.last_value, c.bin_keys, c.bin_counts
              FROM ${table}
             WHERE c.project_id = ${projectId} AND c.key = ${key}
                   ${branch === undefined ? sql`` : sql`AND c.branch = ${branch}`}
                   AND c.unit = s.unit AND c.start >= s.f AND c.start < s.t OFFSET 0) c),
        cells AS (
          SELECT b, sum(count)::bigint AS count, min(min) AS min, max(max) AS max,
                 array_agg(sum ORDER BY unit DESC, start)::text AS sums,
                 '{' || string_agg(array_to_string(bin_keys, ','), ',' ORDER BY unit DESC, start)
                     || '}' AS keys,
                 '{' || string_agg(array_to_string(bin_counts, ','), ',' ORDER BY unit DESC, start)
                     || '}' AS counts,
                 (array_agg(last_at ORDER BY last_at DESC, last_seq DESC))[1] AS last_at,
                 (array_agg(last_seq ORDER BY last_at DESC, last_seq DESC))[1] AS last_seq,
                 (array_agg(last_value ORDER BY last_at DESC, last_seq DESC))[1] AS last_value
            FROM found GROUP BY b)
        SELECT cells.b AS bucket, cells.count, cells.min, cells.max, cells.sums,
               cells.last_at AS "lastAt", cells.last_seq AS seq, cells.last_value AS "lastValue",
               cells.keys, cells.counts, NULL AS payload
          FROM cells
        UNION ALL
        SELECT e.b, NULL, NULL, NULL, NULL, m.created_at, m.seq, NULL, NULL, NULL, m.payload
          FROM edges e CROSS JOIN LATERAL (
          SELECT * FROM metrics m
           WHERE m.created_at >= e.f AND m.created_at < e.t AND ${records} OFFSET 0) m
        UNION ALL
        SELECT -1, NULL, NULL, NULL, NULL, m.created_at, m.seq, NULL, NULL, NULL, m.payload
          FROM stats_queue q CROSS JOIN LATERAL (
          SELECT * FROM metrics m
           WHERE m.seq = ANY(q.metrics)
                 AND m.created_at >= ${range[0]} AND m.created_at < ${range[1]} AND ${records}
                 OFFSET 0) m
         ORDER BY seq`;
      // The cells and the queued records of each bucket, summed (on equal times the record
      // stored later wins, whichever was folded first); the edges' records for the service.
      const sums = new Map<number, SeriesSum>();
      const sumOf = (bucket: number) => {
        let sum = sums.get(bucket);
        if (!sum) {
          sum = emptySeriesSum();
          sums.set(bucket, sum);
        }
        return sum;
      };
      const edges = [];
      for (const row of rows) {
        if (row.payload === null) {
          let total = 0;
          for (const sum of numbersOf(row.sums as string)) total += sum;
          addSeriesSum(sumOf(row.bucket), {
            ...row,
            sum: total,
            lastSeq: row.seq,
            bins: binsOf(row.keys as string, row.counts as string),
          });
          continue;
        }
        const payload = JSON.parse(row.payload) as Record<string, unknown>;
        if (row.bucket >= 0) {
          edges.push({ bucket: row.bucket, t: row.lastAt, payload });
          continue;
        }
        const bucket = cellBucketOf(plan, row.lastAt);
        if (bucket === undefined) continue;
        for (const [leaf, value] of seriesOf(payload)) {
          if (leaf === key) addSeriesValue(sumOf(bucket), row.lastAt, value, undefined, row.seq);
        }
      }
      const cells = [...sums].map(([bucket, { bins, ...sum }]) => ({
        ...sum,
        bucket,
        bins: [...bins],
      }));
      return { cells, records: edges };
    },

    async eventData(projectId, filter, plan) {
      const range = planRange(plan);
      if (!range) return { cells: [], events: [] };
      const cellFilters = sql`
        ${filter.branch === undefined ? sql`` : sql`AND c.branch = ${filter.branch}`}
        ${filter.eventType === undefined ? sql`` : sql`AND c.event_type = ${filter.eventType}`}`;
      const events = sql`e.project_id = ${projectId}
        ${filter.branch === undefined ? sql`` : sql`AND e.branch = ${filter.branch}`}
        ${filter.eventType === undefined ? sql`` : sql`AND e.event_type = ${filter.eventType}`}`;
      // Cells summed per bucket, edges counted per bucket, queued events one by one.
      const rows = await sql<EventRow[]>`
        WITH ${planTables(sql, plan)}
        SELECT s.b AS bucket, sum(c.success)::int AS success, sum(c.failure)::int AS failure,
               sum(c.cancelled)::int AS cancelled, sum(c.other)::int AS other,
               NULL::bigint AS t, NULL AS status
          FROM spans s CROSS JOIN LATERAL (
          SELECT * FROM event_cells c
           WHERE c.project_id = ${projectId} AND c.unit = s.unit
                 AND c.start >= s.f AND c.start < s.t ${cellFilters} OFFSET 0) c
         GROUP BY s.b
        UNION ALL
        SELECT x.b, ${sql.unsafe(STATUS_COUNTS)}, NULL, NULL
          FROM edges x CROSS JOIN LATERAL (
          SELECT * FROM events e
           WHERE e.created_at >= x.f AND e.created_at < x.t AND ${events} OFFSET 0) e
         GROUP BY x.b
        UNION ALL
        SELECT -1, 0, 0, 0, 0, e.created_at, e.status
          FROM stats_queue q CROSS JOIN LATERAL (
          SELECT * FROM events e
           WHERE e.seq = ANY(q.events)
                 AND e.created_at >= ${range[0]} AND e.created_at < ${range[1]} AND ${events}
                 OFFSET 0) e`;
      const cells: EventCountCell[] = [];
      const queued = [];
      for (const { bucket, t, status, ...counts } of rows) {
        if (bucket >= 0) {
          cells.push({ bucket, ...counts });
          continue;
        }
        const at = cellBucketOf(plan, t as number);
        if (at !== undefined) queued.push({ bucket: at, status });
      }
      return { cells, events: queued };
    },

    // The latest by time (then seq) on events_by_time: an imported event is as old as it says.
    async latestStatus(projectId, filter) {
      const [row] = await sql<{ status: string }[]>`
        SELECT status FROM events WHERE project_id = ${projectId} AND status IS NOT NULL
               ${filter.branch === undefined ? sql`` : sql`AND branch = ${filter.branch}`}
               ${filter.eventType === undefined ? sql`` : sql`AND event_type = ${filter.eventType}`}
         ORDER BY created_at DESC, seq DESC LIMIT 1`;
      return row?.status ?? null;
    },

    async latestStatusEvent(projectId, filter) {
      const [row] = await sql<{ status: string; eventType: string }[]>`
        SELECT status, event_type AS "eventType" FROM events
         WHERE project_id = ${projectId} AND status IS NOT NULL
               ${filter.branch === undefined ? sql`` : sql`AND branch = ${filter.branch}`}
               ${filter.eventType === undefined ? sql`` : sql`AND event_type = ${filter.eventType}`}
         ORDER BY created_at DESC, seq DESC LIMIT 1`;
      return row ?? null;
    },

    async branches(projectId) {
      // Byte order, as SQLite's BINARY collation (not the database's locale).
      const rows = await sql<{ branch: string }[]>`
        SELECT branch FROM branches WHERE project_id = ${projectId}
         ORDER BY branch COLLATE "C" LIMIT ${MAX_BRANCHES}`;
      return rows.map((row) => row.branch);
    },
  };
}
