import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate, type Sql } from '../../server/storage/postgres/pg-database.js';
import { pgMigrations } from '../../server/storage/postgres/pg-migrations.js';
import { selectColumn } from '../helpers/database.js';
import { holdFolds } from '../helpers/seed-records.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';
import { connect, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { expectWorkflowHeadline, workflowRuns } from '../helpers/workflow-seed.js';

/**
 * A PostgreSQL database from before the workflow cells (schema 22), most of its records folded
 * already and a few still queued: migration 25 queues the folded ones for the workflow cells
 * (workflow_queue), the fold drains both queues, and a workflow's figures are the same while
 * they wait (read from the records) and after, with no record counted twice.
 */

let database: TestDatabase;
let server: TestServer | undefined;
beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
});
afterAll(async () => {
  await server?.close();
  await database.drop();
});

const BASE = Date.parse('2026-10-01T00:00:00.000Z');

it('queues the records folded before the workflow cells, folds them once, answers the same', async () => {
  const folded = workflowRuns(BASE, 150);
  const later = workflowRuns(BASE, 10, 150);
  const sql = connect(database.location);
  try {
    await migrate(
      sql as unknown as Sql,
      pgMigrations.filter((m) => m.version <= 22),
    );
    await sql`INSERT INTO accounts (id, label, created_at) VALUES ('a', NULL, 'now')`;
    // The build-duration key named (the series list is the ingest statement's, not written here).
    await sql`INSERT INTO projects (id, account_id, name, name_key, created_at, duration_key)
              VALUES ('p', 'a', 'Web', 'web', 'now', 'duration_ms')`;
    const store = async (runs: typeof folded) => {
      for (const run of runs) {
        await sql`INSERT INTO events (id, project_id, event_type, payload, created_at, branch, status)
                  VALUES (${`e${run.i}`}, 'p', 'build', ${run.event}, ${run.at}, ${run.branch}, ${run.status})`;
        await sql`INSERT INTO metrics (id, project_id, payload, created_at, branch)
                  VALUES (${`m${run.i}`}, 'p', ${run.metric}, ${run.at}, ${run.branch})`;
      }
    };
    await store(folded);
    // As a server of schema 22 leaves them once folded (its cells are not what is tested here).
    await sql`DELETE FROM stats_queue`;
    await store(later);
  } finally {
    await sql.end({ timeout: 1 });
  }

  const folds = await holdFolds(database);
  server = await startTestServer({}, database);
  const count = async (query: string) => Number((await selectColumn(database, query))[0]);
  const created = await server.call('POST', '/admin/accounts/a/keys', {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    body: { label: 'test' },
  });
  const key = created.json().apiKey as string;
  const runs = [...folded, ...later];
  const days = { from: '2026-10-01', to: '2026-10-07' };

  // The folded records wait in workflow_queue, the later ones in stats_queue: read from both.
  expect(await count('SELECT count(*) FROM workflow_queue')).toBeGreaterThan(0);
  expect(await count('SELECT count(*) FROM stats_queue')).toBeGreaterThan(0);
  await expectWorkflowHeadline(server, key, 'p', runs, days);
  await folds.release();
  await expect
    .poll(
      async () =>
        (await count('SELECT count(*) FROM workflow_queue')) +
        (await count('SELECT count(*) FROM stats_queue')),
      { timeout: 15_000, interval: 100 },
    )
    .toBe(0);
  expect(
    await count(
      "SELECT sum(success + failure + cancelled + other) FROM workflow_event_cells WHERE workflow = 'CI'",
    ),
  ).toBe(runs.filter((r) => r.workflow === 'CI').length);
  expect(
    await count(
      "SELECT sum(count) FROM workflow_series_cells WHERE workflow = 'Release' AND key = 'duration_ms'",
    ),
  ).toBe(runs.filter((r) => r.workflow === 'Release').length);
  await expectWorkflowHeadline(server, key, 'p', runs, days);
});
