import type { RecordTable, RetentionBatch, RetentionRepository } from '../storage.js';
import type { Sql } from './pg-database.js';
import {
  isPartitioned,
  PARTITIONED_TABLES,
  type Partition,
  partitionsOf,
  withShortLocks,
} from './pg-partitions.js';

const DAY_MS = 86_400_000;

/** A partition found not to be past retention once detached: the transaction is rolled back. */
class StillKept extends Error {}

/**
 * Whether every record of the partition (or of the table it was, once detached) is past its
 * project's retention and folded: it has records (an empty one stays for its month's imports),
 * no project without retention, or whose retention reaches past
 * the partition's end, has a record in it, and none of its records is queued for the fold.
 */
async function expired(sql: Sql, table: string, part: string, to: number, now: number) {
  if (table === 'test_results') return resultsExpired(sql, part, now);
  const [row] = await sql<{ expired: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM ${sql(part)}) AND NOT EXISTS (
             SELECT 1 FROM projects pr
              WHERE (pr.retention_days IS NULL
                     OR ${to}::bigint > ${now}::bigint - pr.retention_days::bigint * ${DAY_MS})
                AND EXISTS (SELECT 1 FROM ${sql(part)} r WHERE r.project_id = pr.id)
           ) AND NOT EXISTS (
             SELECT 1 FROM stats_queue q CROSS JOIN LATERAL unnest(q.${sql(table)}) AS s(seq)
               JOIN ${sql(part)} r ON r.seq = s.seq
           ) AS expired`;
  return row?.expired ?? false;
}

/**
 * Whether every test result of the partition is past its project's retention: it has results and
 * none of its runs (those in the range of its run ids, read from its primary key) is of a
 * project without retention or younger than the project's retention. Asked per run rather than
 * by the partition's range: the results stored before migration 24 are all in the partition of
 * the past, whatever their run's time. Test results are never pinned, nor queued for a fold.
 */
async function resultsExpired(sql: Sql, part: string, now: number) {
  const [row] = await sql<{ expired: boolean }[]>`
    WITH ids AS (SELECT min(run_id) AS low, max(run_id) AS high FROM ${sql(part)})
    SELECT EXISTS (SELECT 1 FROM ${sql(part)}) AND NOT EXISTS (
             SELECT 1 FROM ids, test_runs tr JOIN projects pr ON pr.id = tr.project_id
              WHERE tr.id BETWEEN ids.low AND ids.high
                AND (pr.retention_days IS NULL
                     OR tr.created_at >= ${now}::bigint - pr.retention_days::bigint * ${DAY_MS})
                AND EXISTS (SELECT 1 FROM ${sql(part)} r WHERE r.run_id = tr.id)
           ) AS expired`;
  return row?.expired ?? false;
}

/**
 * Drops one partition whose records are all past retention, in a short transaction: detached
 * (the table's exclusive lock for a moment), looked at again, its pinned records put back into
 * the table (they land in the DEFAULT partition, the range being no one's now; the triggers are
 * off for it, as they are folded already), then dropped. Undefined when it had to stay.
 */
async function dropPartition(sql: Sql, table: string, part: Partition, now: number) {
  const started = performance.now();
  try {
    const kept = await withShortLocks(sql, async (tx) => {
      await tx.unsafe(`ALTER TABLE ${table} DETACH PARTITION "${part.name}"`);
      if (!(await expired(tx, table, part.name, part.to as number, now))) throw new StillKept();
      const [pinned] =
        table === 'test_results'
          ? []
          : await tx<{ n: number }[]>`
              SELECT count(*)::int AS n FROM ${tx(part.name)} WHERE pinned <> 0`;
      if (pinned && pinned.n > 0) {
        const [columns] = await tx<{ list: string }[]>`
          SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS list FROM pg_attribute
           WHERE attrelid = to_regclass(${table}) AND attnum > 0 AND NOT attisdropped`;
        const list = columns?.list as string;
        await tx.unsafe(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
        await tx.unsafe(
          `INSERT INTO ${table} (${list}) SELECT ${list} FROM "${part.name}" WHERE pinned <> 0`,
        );
        await tx.unsafe(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
      }
      await tx.unsafe(`DROP TABLE "${part.name}"`);
      return pinned?.n ?? 0;
    });
    return { kept, ms: performance.now() - started };
  } catch (error) {
    if (error instanceof StillKept) return undefined;
    throw error;
  }
}

/** Retention on PostgreSQL: the same batches as SQLite's, in SQL of its own. */
export function pgRetention(sql: Sql): RetentionRepository {
  return {
    async retentionOf(projectId) {
      const [row] = await sql<{ days: number | null }[]>`
        SELECT retention_days AS days FROM projects WHERE id = ${projectId}`;
      return row?.days ?? null;
    },
    async setRetention(projectId, days) {
      await sql`UPDATE projects SET retention_days = ${days} WHERE id = ${projectId}`;
    },
    async withRetention() {
      const rows = await sql<{ projectId: string; retentionDays: number }[]>`
        SELECT id AS "projectId", retention_days AS "retentionDays" FROM projects
         WHERE retention_days IS NOT NULL ORDER BY id`;
      return rows.map((row) => ({ ...row }));
    },
    async pin(projectId, table, id, pinned) {
      const rows = await sql`
        UPDATE ${sql(table)} SET pinned = ${pinned ? 1 : 0}
         WHERE project_id = ${projectId} AND id = ${id} RETURNING 1`;
      return rows.length > 0;
    },

    // One statement, so one transaction: the batch's rows in stored order up to the first that
    // stays for its age or because it is still queued for the fold (stats_queue: a record is
    // deleted only once it is in the cells), and of those the unpinned ones deleted.
    async deleteBatch(
      projectId,
      table: RecordTable,
      before,
      after,
      limit,
    ): Promise<RetentionBatch> {
      const [row] = await sql<
        { deleted: number; last: number | null; looked: number; stop: boolean; ms: number }[]
      >`
        WITH batch AS (
          SELECT seq, created_at, pinned FROM ${sql(table)}
           WHERE project_id = ${projectId} AND seq > ${after}
           ORDER BY seq LIMIT ${limit}
        ), unfolded AS (
          SELECT coalesce(min(s), 9223372036854775807) AS first FROM stats_queue, unnest(${sql(table)}) s
        ), stop AS (
          SELECT min(b.seq) AS seq FROM batch b, unfolded u
           WHERE b.created_at >= ${before} OR b.seq >= u.first
        ), gone AS (
          DELETE FROM ${sql(table)} WHERE seq IN (
            SELECT b.seq FROM batch b, stop WHERE b.pinned = 0 AND (stop.seq IS NULL OR b.seq < stop.seq)
          ) RETURNING 1
        ), done AS (
          -- Timed by PostgreSQL once every row is deleted (the aggregate ends after the last).
          SELECT count(*)::int AS n, clock_timestamp() AS at FROM gone
        )
        SELECT (SELECT n FROM done) AS deleted,
               (SELECT extract(epoch FROM at - statement_timestamp()) * 1000 FROM done)::float8 AS ms,
               (SELECT max(b.seq) FROM batch b, stop WHERE stop.seq IS NULL OR b.seq < stop.seq) AS last,
               (SELECT count(*) FROM batch)::int AS looked,
               (SELECT seq IS NOT NULL FROM stop) AS stop`;
      const result = row as {
        deleted: number;
        last: number | null;
        looked: number;
        stop: boolean;
        ms: number;
      };
      return {
        deleted: result.deleted,
        last: result.last ?? after,
        done: result.stop || result.looked < limit,
        ms: result.ms,
      };
    },

    async dropExpiredPartitions(now) {
      const report = { dropped: [] as string[], kept: 0, longestMs: 0 };
      for (const table of PARTITIONED_TABLES) {
        if (!(await isPartitioned(sql, table))) continue;
        for (const part of await partitionsOf(sql, table)) {
          if (part.isDefault || part.to === null || part.to > now) continue;
          if (!(await expired(sql, table, part.name, part.to, now))) continue;
          const done = await dropPartition(sql, table, part, now);
          if (!done) continue;
          report.dropped.push(part.name);
          report.kept += done.kept;
          report.longestMs = Math.max(report.longestMs, done.ms);
        }
      }
      return report;
    },

    // Autovacuum makes the deleted rows' space reusable; nothing to give back by hand.
    reclaim: async () => ({ freePages: 0, ms: 0 }),

    async deleteTestBatch(projectId, before, limit) {
      const start = performance.now();
      const batch = { deleted: 0, runs: 0, done: false };
      await sql.begin(async (tx) => {
        while (batch.deleted < limit) {
          const [run] = await tx<{ id: number }[]>`
            SELECT id FROM test_runs WHERE project_id = ${projectId} AND created_at < ${before}
             ORDER BY created_at, id LIMIT 1`;
          if (!run) {
            batch.done = true;
            // As on SQLite (sqlite-retention.ts): the summaries of tests with no result left.
            await tx`
              DELETE FROM test_summaries WHERE project_id = ${projectId} AND last_run <
                coalesce((SELECT min(id) FROM test_runs WHERE project_id = ${projectId}),
                         9007199254740991)`;
            // And the day rows before the oldest kept run's day (sqlite-retention.ts).
            await tx`
              DELETE FROM test_days WHERE project_id = ${projectId} AND day <
                coalesce((SELECT min(created_at) FROM test_runs WHERE project_id = ${projectId})
                           / 86400000, 2147483647)`;
            return;
          }
          const asked = limit - batch.deleted;
          // A run's results are a range of the primary key (run_id, test_id): its first `asked`.
          const removed = await tx`
            DELETE FROM test_results WHERE run_id = ${run.id} AND test_id IN
              (SELECT test_id FROM test_results WHERE run_id = ${run.id}
                ORDER BY test_id LIMIT ${asked})`;
          batch.deleted += removed.count;
          if (removed.count === asked) return;
          await tx`DELETE FROM test_runs WHERE id = ${run.id}`;
          batch.runs += 1;
        }
      });
      return { ...batch, ms: performance.now() - start };
    },
  };
}
