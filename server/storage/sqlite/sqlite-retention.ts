import type { RecordTable, RetentionBatch, RetentionRepository } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const retentionWrites = [
  'setRetention',
  'pin',
  'deleteBatch',
  'reclaim',
  'deleteTestBatch',
] as const;

/** Retention on SQLite: records deleted in short batches once folded; freed pages given back. */
export function sqliteRetention(db: Db): Sync<RetentionRepository> {
  const retentionOf = db.prepare('SELECT retention_days FROM projects WHERE id = ?').pluck();
  const setRetention = db.prepare('UPDATE projects SET retention_days = ? WHERE id = ?');
  const withRetention = db.prepare(
    `SELECT id AS projectId, retention_days AS retentionDays FROM projects
      WHERE retention_days IS NOT NULL ORDER BY id`,
  );
  const folded = db.prepare('SELECT events, metrics FROM stats_progress');
  const statements = (table: RecordTable) => ({
    // The record's id has no index of its own (ingest pays for each index): the project's
    // records are scanned for it, which is fine for an operator's occasional pin.
    pin: db.prepare(`UPDATE ${table} SET pinned = ? WHERE project_id = ? AND id = ?`),
    scan: db.prepare(
      `SELECT seq, created_at AS createdAt, pinned FROM ${table}
        WHERE project_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    ),
    remove: db.prepare(`DELETE FROM ${table} WHERE seq = ?`),
  });
  const tables = { events: statements('events'), metrics: statements('metrics') };
  const freePages = db.prepare('PRAGMA freelist_count').pluck();
  const oldestRun = db
    .prepare(
      `SELECT id FROM test_runs WHERE project_id = ? AND created_at < ?
        ORDER BY created_at, id LIMIT 1`,
    )
    .pluck();
  // A run's results are a range of the primary key (run_id, test_id): the first `limit` of it.
  const removeResults = db.prepare(
    `DELETE FROM test_results WHERE run_id = ? AND test_id IN
       (SELECT test_id FROM test_results WHERE run_id = ? ORDER BY test_id LIMIT ?)`,
  );
  const removeRun = db.prepare('DELETE FROM test_runs WHERE id = ?');
  // Once a project's old runs are gone: the summaries of tests with no result left (their newest
  // run older than every run kept). A summary's entries of deleted runs need no upkeep: reads
  // keep only the entries of the runs they look at (services/tests/flaky-summary.ts).
  const removeSummaries = db.prepare(
    `DELETE FROM test_summaries WHERE project_id = @project AND last_run <
       coalesce((SELECT min(id) FROM test_runs WHERE project_id = @project), 9007199254740991)`,
  );

  // And the day rows before the oldest kept run's day (a day with runs left keeps its row whole).
  const removeDays = db.prepare(
    `DELETE FROM test_days WHERE project_id = @project AND day <
       coalesce((SELECT min(created_at) FROM test_runs WHERE project_id = @project) / 86400000,
                2147483647)`,
  );

  return {
    retentionOf: (projectId) => (retentionOf.get(projectId) as number | null | undefined) ?? null,
    setRetention(projectId, days) {
      setRetention.run(days, projectId);
    },
    withRetention: () => withRetention.all() as { projectId: string; retentionDays: number }[],
    pin: (projectId, table, id, pinned) =>
      tables[table].pin.run(pinned ? 1 : 0, projectId, id).changes > 0,

    deleteBatch(projectId, table, before, after, limit): RetentionBatch {
      const start = performance.now();
      // Records after the fold's mark are still read from the records: they stay until folded.
      const mark = (folded.get() as Record<RecordTable, number>)[table];
      const { scan, remove } = tables[table];
      const rows = scan.all(projectId, after, limit) as {
        seq: number;
        createdAt: number;
        pinned: number;
      }[];
      let deleted = 0;
      let last = after;
      for (const row of rows) {
        if (row.createdAt >= before || row.seq > mark) {
          return { deleted, last, done: true, ms: performance.now() - start };
        }
        if (row.pinned === 0) deleted += remove.run(row.seq).changes;
        last = row.seq;
      }
      return { deleted, last, done: rows.length < limit, ms: performance.now() - start };
    },

    deleteTestBatch(projectId, before, limit) {
      const start = performance.now();
      const batch = { deleted: 0, runs: 0, done: false };
      while (batch.deleted < limit) {
        const run = oldestRun.get(projectId, before) as number | undefined;
        if (run === undefined) {
          batch.done = true;
          removeSummaries.run({ project: projectId });
          removeDays.run({ project: projectId });
          break;
        }
        const asked = limit - batch.deleted;
        const removed = removeResults.run(run, run, asked).changes;
        batch.deleted += removed;
        if (removed === asked) break;
        removeRun.run(run);
        batch.runs += 1;
      }
      return { ...batch, ms: performance.now() - start };
    },

    reclaim(pages) {
      const start = performance.now();
      // A no-op on a file without auto_vacuum = INCREMENTAL (docs/operations.md, Retention).
      db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
      return { freePages: freePages.get() as number, ms: performance.now() - start };
    },
  };
}
