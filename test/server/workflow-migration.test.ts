import { rmSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase } from '../../server/storage/sqlite/sqlite-database.js';
import { migrations } from '../../server/storage/sqlite/sqlite-migrations.js';
import { sqliteStatsIndex } from '../../server/storage/sqlite/sqlite-stats.js';
import { selectRows } from '../helpers/database.js';
import { foldStatistics } from '../helpers/seed-records.js';
import { ADMIN_TOKEN, startTestServer } from '../helpers/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { expectWorkflowHeadline, workflowRuns } from '../helpers/workflow-seed.js';

/**
 * A SQLite database from before the workflow cells (schema 24), its records folded into the
 * other cells already, and a few stored after that fold: migration 26 builds the workflow cells
 * of the folded ones from their payloads, the fold adds the others, and none is counted twice.
 */

// SQLite only (excluded from the postgres project): PostgreSQL's is pg-workflow-migration.
let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => rmSync(database.dir, { recursive: true, force: true }));

const BASE = Date.parse('2026-10-01T00:00:00.000Z');

it('builds the workflow cells of the records stored before them', async () => {
  const old = openDatabase(
    database.location,
    'full',
    migrations.filter((m) => m.version <= 24),
  );
  old.exec(`INSERT INTO accounts VALUES ('a', NULL, '2026-01-01T00:00:00.000Z');
    INSERT INTO projects (id, account_id, name, created_at, name_key)
    VALUES ('p', 'a', 'Web', '2026-01-01T00:00:00.000Z', 'web');`);
  const event = old.prepare(
    `INSERT INTO events (id, project_id, event_type, description, payload, color, created_at, branch, status)
     VALUES (?, 'p', 'build', NULL, ?, NULL, ?, ?, ?)`,
  );
  const metric = old.prepare(
    `INSERT INTO metrics (id, project_id, payload, created_at, branch) VALUES (?, 'p', ?, ?, ?)`,
  );
  const store = (runs: ReturnType<typeof workflowRuns>) => {
    for (const run of runs) {
      event.run(`e${run.i}`, run.event, run.at, run.branch, run.status);
      metric.run(`m${run.i}`, run.metric, run.at, run.branch);
    }
  };
  // Folded by a server of schema 24 (no workflow cells then), and 10 more it had not folded.
  const folded = workflowRuns(BASE, 150);
  store(folded);
  sqliteStatsIndex(old).foldAll();
  const later = workflowRuns(BASE, 10, 150);
  store(later);
  old.close();

  const server = await startTestServer({}, database);
  try {
    const runs = [...folded, ...later];
    const created = await server.call('POST', '/admin/accounts/a/keys', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { label: 'test' },
    });
    const key = created.json().apiKey as string;
    const days = { from: '2026-10-01', to: '2026-10-07' };
    // The 10 not folded yet are read from the records, then folded once.
    await expectWorkflowHeadline(server, key, 'p', runs, days);
    await foldStatistics(server, Date.now());
    const cells = await selectRows(
      database,
      "SELECT sum(success + failure + cancelled + other) AS n FROM workflow_event_cells WHERE workflow = 'CI'",
    );
    expect(Number(cells[0]?.n)).toBe(runs.filter((r) => r.workflow === 'CI').length);
    const series = await selectRows(
      database,
      "SELECT sum(count) AS n FROM workflow_series_cells WHERE workflow = 'Release' AND key = 'duration_ms'",
    );
    expect(Number(series[0]?.n)).toBe(runs.filter((r) => r.workflow === 'Release').length);
    await expectWorkflowHeadline(server, key, 'p', runs, days);
  } finally {
    await server.close();
  }
});
