import { rmSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import type { EventPage, MetricPage } from '../../contract/readback.js';
import type { BuildSummary, MetricKeys, MetricSeries } from '../../contract/stats-queries.js';
import { openDatabase } from '../../server/storage/sqlite/sqlite-database.js';
import { migrations } from '../../server/storage/sqlite/sqlite-migrations.js';
import { selectRows } from '../helpers/database.js';
import { ADMIN_TOKEN, startTestServer } from '../helpers/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * A database from before the statistics (schema 3): its records get their branch and status,
 * times that never go back, minute marks and cells, and answer like records stored today.
 */

// SQLite only (excluded from the postgres project): it starts from SQLite's schema 3.
let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => rmSync(database.dir, { recursive: true, force: true }));

const BASE = Date.parse('2026-11-01T00:00:00.000Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

it('migrates stored records into the statistics, a clock that stepped back included', async () => {
  const old = openDatabase(database.location, 'full', migrations.slice(0, 3));
  old.exec(`INSERT INTO accounts VALUES ('a', NULL, '2026-01-01T00:00:00.000Z');
    INSERT INTO projects VALUES ('p', 'a', 'Web', '2026-01-01T00:00:00.000Z');`);
  const event = old.prepare(
    `INSERT INTO events (id, project_id, event_type, description, payload, color, created_at)
     VALUES (?, 'p', 'build', NULL, ?, NULL, ?)`,
  );
  const metric = old.prepare(
    `INSERT INTO metrics (id, project_id, payload, created_at) VALUES (?, 'p', ?, ?)`,
  );
  // Minute by minute, with one record whose clock stepped back two minutes.
  const rows: [number, string, string, number][] = [
    [BASE, 'success', 'main', 10],
    [BASE + MINUTE, 'failure', 'main', 20],
    [BASE + 3 * MINUTE, 'success', 'dev', 30],
    [BASE + MINUTE + 5, 'cancelled', 'main', 40],
    [BASE + 4 * MINUTE, 'success', 'main', 50],
  ];
  rows.forEach(([t, status, branch, ms], i) => {
    const github = { ref: `refs/heads/${branch}` };
    event.run(`e${i}`, JSON.stringify({ status, github }), t);
    metric.run(`m${i}`, JSON.stringify({ ms, github }), t);
  });
  old.close();

  const server = await startTestServer({}, database);
  try {
    // Folded into cells by the migration itself.
    expect(await selectRows(database, 'SELECT events, metrics FROM stats_progress')).toEqual([
      { events: 5, metrics: 5 },
    ]);
    const created = await server.call('POST', '/admin/accounts/a/keys', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { label: 'test' },
    });
    const key = created.json().apiKey as string;
    const get = async <T>(path: string, query: Record<string, string>) =>
      (
        await server.call('GET', `${path}?${new URLSearchParams({ projectId: 'p', ...query })}`, {
          key,
        })
      ).json() as T;

    // The record stored after the one at 3 minutes keeps that time.
    const metrics = await get<MetricPage>(Paths.getMetrics, {});
    expect(metrics.metrics.map((m) => m.created_at)).toEqual(
      [BASE + 4 * MINUTE, BASE + 3 * MINUTE, BASE + 3 * MINUTE, BASE + MINUTE, BASE].map(iso),
    );
    const range = { from: iso(BASE), to: iso(BASE + 5 * MINUTE) };
    const main = await get<EventPage>(Paths.getEvents, { ...range, branch: 'main' });
    expect(main.events.map((e) => e.id)).toEqual(['e4', 'e3', 'e1', 'e0']);
    const keys = await get<MetricKeys>(Paths.getMetricKeys, {});
    expect(keys.keys).toEqual([
      {
        key: 'ms',
        count: 5,
        last_value: 50,
        last_at: iso(BASE + 4 * MINUTE),
        unit: null,
        direction: null,
      },
    ]);
    const series = await get<MetricSeries>(Paths.getMetricSeries, {
      ...range,
      key: 'ms',
      buckets: '5',
    });
    expect(series.buckets.map((b) => [b.start, b.count, b.min, b.max, b.last])).toEqual([
      [iso(BASE), 1, 10, 10, 10],
      [iso(BASE + MINUTE), 1, 20, 20, 20],
      [iso(BASE + 3 * MINUTE), 2, 30, 40, 40],
      [iso(BASE + 4 * MINUTE), 1, 50, 50, 50],
    ]);
    const summary = await get<BuildSummary>(Paths.getBuildSummary, {
      ...range,
      buckets: '1',
      branch: 'main',
    });
    expect(summary.buckets).toEqual([
      {
        start: iso(BASE),
        end: iso(BASE + 5 * MINUTE),
        success: 2,
        failure: 1,
        cancelled: 1,
        other: 0,
      },
    ]);
    expect(summary.success_rate).toBeCloseTo(2 / 3, 12);
  } finally {
    await server.close();
  }
});
