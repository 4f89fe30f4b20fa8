import { afterAll, beforeAll, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import type { BuildSummary, MetricSeries } from '../../contract/stats-queries.js';
import { migrate, type Sql } from '../../server/storage/postgres/pg-database.js';
import { pgMigrations } from '../../server/storage/postgres/pg-migrations.js';
import { selectColumn } from '../helpers/database.js';
import { holdFolds } from '../helpers/seed-records.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';
import { connect, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * A PostgreSQL database from before the statistics cells (schema 2), its records read from the
 * records themselves then: the migration queues every record, a replica folds them, and the
 * answers are the same before and after.
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

const BASE = Date.parse('2026-11-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

it('queues the records stored before the cells, folds them, and answers the same', async () => {
  // Schema 2 only, as a server of then left it.
  const sql = connect(database.location);
  try {
    await migrate(sql as unknown as Sql, pgMigrations.slice(0, 2));
    await sql`INSERT INTO accounts (id, label, created_at) VALUES ('a', NULL, 'now')`;
    await sql`INSERT INTO projects (id, account_id, name, name_key, created_at)
              VALUES ('p', 'a', 'Web', 'web', 'now')`;
    // Over 25 000 records: more than one queue row (20 000 seqs each), and more than one fold.
    await sql`
      INSERT INTO metrics (id, project_id, payload, created_at, branch)
      SELECT 'm' || i, 'p', json_build_object('ms', i % 100)::text, ${BASE}::bigint + i * 1000,
             CASE WHEN i % 2 = 0 THEN 'main' END
        FROM generate_series(0, 25999) AS i ORDER BY i`;
    await sql`
      INSERT INTO events (id, project_id, event_type, payload, created_at, branch, status)
      SELECT 'e' || i, 'p', 'build', '{}', ${BASE}::bigint + i * 1000, 'main',
             (ARRAY['success', 'failure', 'cancelled', NULL])[i % 4 + 1]
        FROM generate_series(0, 25999) AS i ORDER BY i`;
    // As autovacuum leaves a database that has lived: without statistics of the tables just
    // filled, the planner scans all of metrics for each queue row, and the first answers read
    // from the queue took 23 s each on a loaded machine instead of under one.
    await sql`ANALYZE metrics, events`;
  } finally {
    await sql.end({ timeout: 1 });
  }

  // The replicas' folds wait until the answers from the records alone are read.
  const folds = await holdFolds(database);
  server = await startTestServer({}, database);
  const queued = async () =>
    Number((await selectColumn(database, 'SELECT count(*) FROM stats_queue'))[0]);
  const created = await server.call('POST', '/admin/accounts/a/keys', {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    body: { label: 'test' },
  });
  const key = created.json().apiKey as string;
  const get = async <T>(path: string, query: Record<string, string>) =>
    (
      await (server as TestServer).call(
        'GET',
        `${path}?${new URLSearchParams({ projectId: 'p', ...query })}`,
        { key },
      )
    ).json() as T;
  const range = { from: iso(BASE - 5), to: iso(BASE + 26_000_000 - 5) };
  const answers = async () => [
    await get<MetricSeries>(Paths.getMetricSeries, { ...range, key: 'ms', buckets: '7' }),
    await get<MetricSeries>(Paths.getMetricSeries, {
      ...range,
      key: 'ms',
      buckets: '3',
      branch: 'main',
    }),
    await get<BuildSummary>(Paths.getBuildSummary, { ...range, buckets: '5' }),
  ];

  // Every record queued by the migration (seq / 20,000: two rows per table): read from the records.
  expect(await queued()).toBe(4);
  const before = await answers();
  expect(await queued()).toBe(4);
  const [series, mainSeries, summary] = before as [MetricSeries, MetricSeries, BuildSummary];
  expect(series.buckets.reduce((n, b) => n + b.count, 0)).toBe(26_000);
  expect(mainSeries.buckets.reduce((n, b) => n + b.count, 0)).toBe(13_000);
  expect(summary.buckets.reduce((n, b) => n + b.success + b.failure, 0)).toBe(13_000);
  expect(series.buckets.at(-1)?.last).toBe(25_999 % 100);
  // Released, the replica's next turn (within a second) folds them all.
  await folds.release();
  await expect.poll(queued, { timeout: 10_000, interval: 100 }).toBe(0);
  const [cells] = await selectColumn(
    database,
    "SELECT sum(count) FROM series_totals WHERE project_id = 'p' AND unit = 3600000",
  );
  expect(Number(cells)).toBe(26_000);
  expect(await answers()).toEqual(before);
});
