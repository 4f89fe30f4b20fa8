import {
  type ProjectRows,
  type StorageUseRepository,
  type TableSize,
  USE_TABLES,
  type UseTable,
} from '../storage-use.js';
import type { Sql } from './pg-database.js';

/**
 * Storage use on PostgreSQL: a table's bytes are pg_total_relation_size (its heap, TOAST and
 * indexes) of each of its partitions and its rows the planner's estimate (pg_class.reltuples),
 * counted when the table was never analysed yet.
 */
export function pgStorageUse(sql: Sql): StorageUseRepository {
  return {
    async tableSizes() {
      // Summed over the table's partitions (events and metrics are partitioned by month,
      // pg-partitions.ts: the parent itself holds no rows and no bytes); a plain table is its
      // own only leaf.
      const rows = await sql<{ table: UseTable; bytes: string; estimate: number }[]>`
        SELECT t AS table,
               (SELECT coalesce(sum(pg_total_relation_size(p.relid)), 0)
                  FROM pg_partition_tree(to_regclass(t)) p WHERE p.isleaf) AS bytes,
               (SELECT coalesce(sum(greatest(c.reltuples, 0)), 0)::float8
                  FROM pg_partition_tree(to_regclass(t)) p JOIN pg_class c ON c.oid = p.relid
                 WHERE p.isleaf) AS estimate
          FROM unnest(${[...USE_TABLES]}::text[]) AS t`;
      const sizes = {} as Record<UseTable, TableSize>;
      for (const table of USE_TABLES) sizes[table] = { bytes: 0, rows: 0 };
      for (const row of rows) {
        const counted =
          row.estimate > 0
            ? row.estimate
            : Number((await sql`SELECT count(*) AS n FROM ${sql(row.table)}`)[0]?.n ?? 0);
        sizes[row.table] = { bytes: Number(row.bytes), rows: counted };
      }
      return sizes;
    },
    async projectRows(projectId) {
      const [row] = await sql<Record<string, string>[]>`
        SELECT
          (SELECT count(*) FROM events WHERE project_id = ${projectId}) AS events,
          (SELECT count(*) FROM metrics WHERE project_id = ${projectId}) AS metrics,
          (SELECT count(*) FROM test_results WHERE run_id IN
             (SELECT id FROM test_runs WHERE project_id = ${projectId})) AS test_results,
          (SELECT count(*) FROM test_runs WHERE project_id = ${projectId}) AS test_runs,
          (SELECT count(*) FROM test_cases WHERE project_id = ${projectId}) AS test_cases,
          (SELECT count(*) FROM test_messages WHERE project_id = ${projectId}) AS test_messages,
          (SELECT count(*) FROM events WHERE project_id = ${projectId} AND pinned = 1)
          + (SELECT count(*) FROM metrics WHERE project_id = ${projectId} AND pinned = 1) AS pinned`;
      const rows = { pinned: Number(row?.pinned ?? 0) } as ProjectRows;
      for (const table of USE_TABLES) rows[table] = Number(row?.[table] ?? 0);
      return rows;
    },
  };
}
