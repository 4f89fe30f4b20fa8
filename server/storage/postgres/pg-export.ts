import type {
  ExportEventRow,
  ExportMetricRow,
  RecordExportRepository,
  RecordTable,
} from '../storage.js';
import type { Sql } from './pg-database.js';
import { pgTestExport } from './pg-test-export.js';

/** The export's pages on PostgreSQL: the same pages as SQLite's, in SQL of its own. */
export function pgExport(sql: Sql): RecordExportRepository {
  return {
    async events(projectId, range, after, limit) {
      const rows = await sql<ExportEventRow[]>`
        SELECT seq, id, event_type AS "eventType", description, payload, color,
               created_at AS "createdAt"
          FROM events
         WHERE project_id = ${projectId} AND seq > ${after}
           AND (${range.from ?? null}::bigint IS NULL OR created_at >= ${range.from ?? null})
           AND (${range.to ?? null}::bigint IS NULL OR created_at < ${range.to ?? null})
         ORDER BY seq LIMIT ${limit}`;
      return rows.map((row) => ({ ...row }));
    },
    async metrics(projectId, range, after, limit) {
      const rows = await sql<ExportMetricRow[]>`
        SELECT seq, id, payload, created_at AS "createdAt"
          FROM metrics
         WHERE project_id = ${projectId} AND seq > ${after}
           AND (${range.from ?? null}::bigint IS NULL OR created_at >= ${range.from ?? null})
           AND (${range.to ?? null}::bigint IS NULL OR created_at < ${range.to ?? null})
         ORDER BY seq LIMIT ${limit}`;
      return rows.map((row) => ({ ...row }));
    },
    async seqOf(projectId, table: RecordTable, id) {
      const [row] = await sql<{ seq: number; createdAt: number }[]>`
        SELECT seq, created_at AS "createdAt" FROM ${sql(table)}
         WHERE project_id = ${projectId} AND id = ${id}`;
      return row === undefined ? undefined : { seq: row.seq, createdAt: row.createdAt };
    },
    async lastSeqBefore(projectId, table: RecordTable, t, inclusive) {
      const [row] = await sql<{ seq: number }[]>`
        SELECT COALESCE(MAX(seq), 0) AS seq FROM ${sql(table)}
         WHERE project_id = ${projectId}
           AND (created_at < ${t} OR (${inclusive} AND created_at = ${t}))`;
      return row?.seq ?? 0;
    },
    ...pgTestExport(sql),
  };
}
