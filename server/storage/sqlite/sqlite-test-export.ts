import type { TestExportPages } from '../tests/test-export.js';
import { EXPORT_RESULT_SELECT, exportTestOf, positionOf } from '../tests/test-export.js';
import { RUN_COLUMNS, runOf } from '../tests/test-rows.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

/** The pages of a `tests` export on SQLite (pg-test-export.ts has the same in its own SQL). */
export function sqliteTestExport(db: Db): Sync<TestExportPages> {
  const runs = db.prepare(
    `SELECT ${RUN_COLUMNS} FROM test_runs
      WHERE project_id = @projectId AND id > @after
        AND (@from IS NULL OR created_at >= @from) AND (@to IS NULL OR created_at < @to)
      ORDER BY id LIMIT @limit`,
  );
  // The run's slice of the clustered primary key (run_id, test_id), from the position on.
  const results = db.prepare(
    `${EXPORT_RESULT_SELECT} WHERE r.run_id = ? AND r.test_id > ? ORDER BY r.test_id LIMIT ?`,
  );
  const position = db.prepare(
    `SELECT (SELECT id FROM test_runs WHERE project_id = @projectId AND key = @run) AS run,
            (SELECT id FROM test_cases WHERE project_id = @projectId AND key = @test) AS test`,
  );
  return {
    testRuns: (projectId, range, after, limit) =>
      (
        runs.all({
          projectId,
          after,
          limit,
          from: range.from ?? null,
          to: range.to ?? null,
        }) as Record<string, unknown>[]
      ).map(runOf),
    testResults: (runId, afterTest, limit) =>
      (results.all(runId, afterTest, limit) as Record<string, unknown>[]).map(exportTestOf),
    testPosition: (projectId, run, test) =>
      positionOf(
        position.get({ projectId, run, test }) as { run: unknown; test: unknown } | undefined,
      ),
  };
}
