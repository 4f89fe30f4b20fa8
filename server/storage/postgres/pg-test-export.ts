import type { TestExportPages } from '../tests/test-export.js';
import { EXPORT_RESULT_SELECT, exportTestOf, positionOf } from '../tests/test-export.js';
import { RUN_COLUMNS, runOf } from '../tests/test-rows.js';
import type { Sql } from './pg-database.js';

/** The pages of a `tests` export on PostgreSQL (sqlite-test-export.ts has the same). */
export function pgTestExport(sql: Sql): TestExportPages {
  return {
    async testRuns(projectId, range, after, limit) {
      const rows = await sql`
        SELECT ${sql.unsafe(RUN_COLUMNS)} FROM test_runs
         WHERE project_id = ${projectId} AND id > ${after}
           AND (${range.from ?? null}::bigint IS NULL OR created_at >= ${range.from ?? null})
           AND (${range.to ?? null}::bigint IS NULL OR created_at < ${range.to ?? null})
         ORDER BY id LIMIT ${limit}`;
      return rows.map(runOf);
    },
    async testResults(runId, afterTest, limit) {
      const rows = await sql`
        ${sql.unsafe(EXPORT_RESULT_SELECT)}
         WHERE r.run_id = ${runId} AND r.test_id > ${afterTest}
         ORDER BY r.test_id LIMIT ${limit}`;
      return rows.map(exportTestOf);
    },
    async testPosition(projectId, run, test) {
      const [row] = await sql<{ run: unknown; test: unknown }[]>`
        SELECT (SELECT id FROM test_runs WHERE project_id = ${projectId} AND key = ${run}) AS run,
               (SELECT id FROM test_cases WHERE project_id = ${projectId} AND key = ${test}) AS test`;
      return positionOf(row);
    },
  };
}
