import {
  type ProjectRows,
  type StorageUseRepository,
  type TableSize,
  USE_TABLES,
  type UseTable,
} from '../storage-use.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

/** A project's rows per table: each through the table's index on the project (or its runs). */
const PROJECT_ROWS: Record<UseTable, string> = {
  events: 'SELECT count(*) FROM events WHERE project_id = @p',
  metrics: 'SELECT count(*) FROM metrics WHERE project_id = @p',
  test_results:
    'SELECT count(*) FROM test_results WHERE run_id IN (SELECT id FROM test_runs WHERE project_id = @p)',
  test_runs: 'SELECT count(*) FROM test_runs WHERE project_id = @p',
  test_cases: 'SELECT count(*) FROM test_cases WHERE project_id = @p',
  test_messages: 'SELECT count(*) FROM test_messages WHERE project_id = @p',
};

/**
 * Storage use on SQLite: a table's bytes are the pages of its b-trees (the table's and its
 * indexes') as the dbstat table counts them, walking only those b-trees.
 */
export function sqliteStorageUse(db: Db): Sync<StorageUseRepository> {
  const btrees = db
    .prepare(
      `SELECT name, tbl_name AS tbl FROM sqlite_schema
        WHERE type IN ('table', 'index') AND rootpage > 0
          AND tbl_name IN (${USE_TABLES.map(() => '?').join(', ')})`,
    )
    .all(...USE_TABLES) as { name: string; tbl: UseTable }[];
  const pages = db
    .prepare('SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ? AND aggregate = TRUE')
    .pluck();
  const totals = new Map(
    USE_TABLES.map((table) => [table, db.prepare(`SELECT count(*) FROM ${table}`).pluck()]),
  );
  const counts = new Map(
    USE_TABLES.map((table) => [table, db.prepare(PROJECT_ROWS[table]).pluck()]),
  );
  const pinned = db
    .prepare(
      `SELECT (SELECT count(*) FROM events WHERE project_id = @p AND pinned = 1)
            + (SELECT count(*) FROM metrics WHERE project_id = @p AND pinned = 1)`,
    )
    .pluck();

  return {
    tableSizes() {
      const sizes = {} as Record<UseTable, TableSize>;
      for (const table of USE_TABLES) {
        sizes[table] = { bytes: 0, rows: Number(totals.get(table)?.get() ?? 0) };
      }
      for (const { name, tbl } of btrees) sizes[tbl].bytes += Number(pages.get(name));
      return sizes;
    },
    projectRows(projectId) {
      const rows = { pinned: Number(pinned.get({ p: projectId })) } as ProjectRows;
      for (const table of USE_TABLES)
        rows[table] = Number(counts.get(table)?.get({ p: projectId }) ?? 0);
      return rows;
    },
  };
}
