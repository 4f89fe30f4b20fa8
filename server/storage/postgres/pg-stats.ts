import type postgres from 'postgres';
import type { Bucket, ReadPlan } from '../../domain/time-buckets.js';
import type { EventCountCell, NewRecord, SeriesKeyInfo, StatsRepository } from '../storage.js';
import { integerArray, type Sql } from './pg-database.js';

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

/** The bucket of the plan holding time `t`, if any (buckets are in time order). */
function bucketAt(buckets: readonly Bucket[], t: number): number | undefined {
  let lo = 0;
  let hi = buckets.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((buckets[mid] as Bucket).start <= t) lo = mid + 1;
    else hi = mid;
  }
  const bucket = buckets[lo - 1];
  return bucket && t < bucket.end ? bucket.index : undefined;
}

/** [from, to) of the whole plan, or undefined when it has no bucket. */
function rangeOf(plan: ReadPlan): [number, number] | undefined {
  const first = plan.buckets[0];
  const last = plan.buckets.at(-1);
  return first && last ? [first.start, last.end] : undefined;
}

/**
 * Statistics on PostgreSQL: no pre-aggregated cells. Every bucket is read from the records
 * themselves, on the (project, time) indexes, so `seriesData` and `eventData` answer no cells
 * and all the raw records of the plan's range, each with its bucket (the service sums them as it
 * sums cells and raw edges on SQLite, with the same results). Series keys (summed over their
 * shards) and branches are kept up to date by the append transaction.
 */
export function pgStats(sql: Sql): StatsRepository {
  return {
    async seriesKeys(projectId) {
      const keys = await sql<SeriesKeyInfo[]>`
        SELECT key, SUM(count)::bigint AS count, MAX(last_at) AS "lastAt",
               (array_agg(last_value ORDER BY last_at DESC, last_seq DESC))[1] AS "lastValue"
          FROM series WHERE project_id = ${projectId} GROUP BY key`;
      // Code-unit order, as on SQLite (sorted there in JavaScript too).
      return keys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },

    async seriesData(projectId, key, branch, plan) {
      const range = rangeOf(plan);
      if (!range) return { cells: [], records: [] };
      // Storage order: on equal times the later record's value is the bucket's last. Only
      // records whose text holds the key's last part (as JSON writes it) can have the key.
      const part = JSON.stringify(key.split('.').at(-1)).slice(1, -1);
      const rows = await sql<{ t: number; payload: string }[]>`
        SELECT created_at AS t, payload FROM metrics
         WHERE project_id = ${projectId} AND created_at >= ${range[0]} AND created_at < ${range[1]}
               ${branch === undefined ? sql`` : sql`AND branch = ${branch}`}
               AND strpos(payload, ${part}) > 0
         ORDER BY seq`;
      const records = [];
      for (const row of rows) {
        const bucket = bucketAt(plan.buckets, row.t);
        if (bucket === undefined) continue;
        records.push({
          bucket,
          t: row.t,
          payload: JSON.parse(row.payload) as Record<string, unknown>,
        });
      }
      return { cells: [], records };
    },

    async eventData(projectId, filter, plan) {
      const range = rangeOf(plan);
      if (!range) return { cells: [], events: [] };
      // Counted per bucket by the database, in statusClass's columns: one cell per bucket
      // instead of every event of the range. The plan's buckets follow each other without gaps
      // over the range, so width_bucket over their starts places every event of it.
      const starts = integerArray(plan.buckets.map((bucket) => bucket.start));
      const rows = await sql<(Omit<EventCountCell, 'bucket'> & { b: number })[]>`
        SELECT width_bucket(created_at, ${starts}::bigint[]) AS b,
               count(*) FILTER (WHERE status = 'success')::int AS success,
               count(*) FILTER (WHERE status = 'failure')::int AS failure,
               count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled,
               count(*) FILTER (WHERE status IS NULL
                                  OR status NOT IN ('success', 'failure', 'cancelled'))::int AS other
          FROM events
         WHERE project_id = ${projectId} AND created_at >= ${range[0]} AND created_at < ${range[1]}
               ${filter.branch === undefined ? sql`` : sql`AND branch = ${filter.branch}`}
               ${filter.eventType === undefined ? sql`` : sql`AND event_type = ${filter.eventType}`}
         GROUP BY 1 ORDER BY 1`;
      const cells = rows.map(({ b, ...counts }) => ({
        bucket: (plan.buckets[b - 1] as Bucket).index,
        ...counts,
      }));
      return { cells, events: [] };
    },

    async latestStatus(projectId, filter) {
      const [row] = await sql<{ status: string }[]>`
        SELECT status FROM events WHERE project_id = ${projectId} AND status IS NOT NULL
               ${filter.branch === undefined ? sql`` : sql`AND branch = ${filter.branch}`}
               ${filter.eventType === undefined ? sql`` : sql`AND event_type = ${filter.eventType}`}
         ORDER BY seq DESC LIMIT 1`;
      return row?.status ?? null;
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
