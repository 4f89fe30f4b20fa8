import { afterEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { newRecordId } from '../../server/domain/ids.js';
import { seriesOf } from '../../server/domain/record-facts.js';
import { runIdOf } from '../../server/domain/tests/test-identity.js';
import { migrate, type Sql } from '../../server/storage/postgres/pg-database.js';
import { pgMigrations } from '../../server/storage/postgres/pg-migrations.js';
import {
  isPartitioned,
  MONTHS_AHEAD,
  maintainPartitions,
  monthStart,
  partitionsOf,
} from '../../server/storage/postgres/pg-partitions.js';
import type { NewRecord } from '../../server/storage/storage.js';
import { foldStatistics, holdFolds } from '../helpers/seed-records.js';
import { storeTestRun } from '../helpers/seed-tests.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';
import { connect, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The records partitioned by month on PostgreSQL (pg-partitions.ts): the layout of a new
 * database and the partitions made ahead, records of any time stored, retention dropping a
 * whole partition, and the online conversion of a database of plain tables with ingest beside it.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
const month = (t: number) => new Date(t).toISOString().slice(0, 7).replace('-', '');

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openSql(database: TestDatabase): Promise<Sql> {
  const sql = connect(database.location) as unknown as Sql;
  cleanups.push(() => sql.end({ timeout: 1 }));
  return sql;
}

async function started(database?: TestDatabase): Promise<TestServer> {
  // Ingest as fast as the writers send, not as the per-key limit allows.
  const server = await startTestServer({ RATE_LIMIT_INGEST_PER_MINUTE: '1000000' }, database);
  cleanups.push(() => server.close());
  return server;
}

const metric = (projectId: string, createdAt: number, value: number): NewRecord => {
  const payload = { duration_ms: value, branch: 'main' };
  return {
    kind: 'metric',
    row: {
      id: newRecordId(),
      projectId,
      payload: JSON.stringify(payload),
      createdAt,
      branch: 'main',
    },
    series: seriesOf(payload),
  };
};
const event = (projectId: string, createdAt: number): NewRecord => ({
  kind: 'event',
  notification: undefined,
  row: {
    id: newRecordId(),
    projectId,
    eventType: 'build',
    description: null,
    payload: JSON.stringify({ status: 'success' }),
    color: null,
    createdAt,
    branch: null,
    status: 'success',
  },
});

/** Where each record is stored: partition name by id. */
async function placeOf(sql: Sql, table: 'events' | 'metrics', ids: string[]) {
  const rows = await sql<{ id: string; part: string }[]>`
    SELECT id, tableoid::regclass::text AS part FROM ${sql(table)} WHERE id = ANY(${ids})`;
  return Object.fromEntries(rows.map((row) => [row.id, row.part]));
}

/** `n` passed tests, t0 … t<n-1>. */
const cases = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    suite: 's',
    name: `t${i}`,
    duration_ms: i,
    status: 'passed' as const,
  }));

/** Where each run's results are stored: partition names by run key (several: a run split). */
async function resultPlaces(sql: Sql) {
  const rows = await sql<{ key: string; parts: string[]; n: number }[]>`
    SELECT tr.key, array_agg(DISTINCT r.tableoid::regclass::text) AS parts, count(*)::int AS n
      FROM test_results r JOIN test_runs tr ON tr.id = r.run_id GROUP BY tr.key`;
  return Object.fromEntries(rows.map((row) => [row.key, { parts: row.parts, n: row.n }]));
}

/** A project's statistics over a range, one bucket a day (what a chart of it draws). */
async function statistics(
  server: TestServer,
  key: string,
  projectId: string,
  from: number,
  days: number,
) {
  const range = `projectId=${projectId}&from=${new Date(from).toISOString()}&to=${new Date(from + days * DAY).toISOString()}&buckets=${days}`;
  const get = async (path: string, extra = '') => {
    const res = await server.call('GET', `${path}?${range}${extra}`, { key });
    expect(res.statusCode, path).toBe(200);
    return res.json();
  };
  return {
    builds: await get(Paths.getBuildSummary),
    duration: await get(Paths.getMetricSeries, '&key=duration_ms'),
  };
}

describe('record partitions', () => {
  it('a new database is partitioned by month, ahead; records of any time are stored', async () => {
    const server = await started();
    const sql = await openSql(server.database);
    const now = Date.now();
    for (const table of ['events', 'metrics', 'test_results'] as const) {
      expect(await isPartitioned(sql, table)).toBe(true);
      const names = (await partitionsOf(sql, table)).map((p) => p.name);
      expect(names).toContain(`${table}_default`);
      for (let m = 0; m <= MONTHS_AHEAD; m++) {
        expect(names).toContain(`${table}_p${month(monthStart(now, m))}`);
      }
      expect(names.some((name) => name.startsWith(`${table}_before_`))).toBe(true);
    }

    const me = await server.account();
    // Back-dated (an import), this month, and past every partition made so far.
    const far = monthStart(now, MONTHS_AHEAD + 3) + 5 * DAY;
    const records = [
      metric(me.projectId, Date.parse('2019-03-04T05:06:07Z'), 1),
      metric(me.projectId, now, 2),
      metric(me.projectId, far, 3),
      event(me.projectId, Date.parse('2019-03-04T05:06:07Z')),
      event(me.projectId, far),
    ];
    await server.app.storage.records.importBatch(records);
    const ids = records.filter((r) => r.kind === 'metric').map((r) => r.row.id);
    const [old, current, later] = ids as [string, string, string];
    // Test runs likewise, by their run's time; a run sent again in two batches stays whole.
    const oldRun = await storeTestRun(
      server,
      me.projectId,
      Date.parse('2019-03-04T05:06:07Z'),
      'old',
      cases(3),
    );
    const nowRun = await storeTestRun(server, me.projectId, now, 'now', cases(5));
    await storeTestRun(server, me.projectId, now + DAY, 'now', cases(7));
    const farRun = await storeTestRun(server, me.projectId, far, 'far', cases(2));
    const runs = await resultPlaces(sql);
    expect(runs[oldRun.key]?.parts).toEqual([expect.stringMatching(/^test_results_before_/)]);
    expect(runs[nowRun.key]).toEqual({ parts: [`test_results_p${month(now)}`], n: 7 });
    expect(runs[farRun.key]?.parts).toEqual(['test_results_default']);
    let places = await placeOf(sql, 'metrics', ids);
    expect(places[old]).toMatch(/^metrics_before_/);
    expect(places[current]).toBe(`metrics_p${month(now)}`);
    expect(places[later]).toBe('metrics_default');

    // The keeper's run once that month comes near: its partition made, the record moved in.
    const report = await maintainPartitions(sql, far - 40 * DAY);
    expect(report.ran).toBe(true);
    expect(report.created).toContain(`metrics_p${month(far)}`);
    expect(report.created).toContain(`events_p${month(far)}`);
    expect(report.created).toContain(`test_results_p${month(far)}`);
    places = await placeOf(sql, 'metrics', ids);
    expect(places[later]).toBe(`metrics_p${month(far)}`);
    expect((await resultPlaces(sql))[farRun.key]).toEqual({
      parts: [`test_results_p${month(far)}`],
      n: 2,
    });
    expect(Object.keys(await placeOf(sql, 'metrics', ids))).toHaveLength(3);
    // Run again, nothing left to make.
    expect((await maintainPartitions(sql, far - 40 * DAY)).created).toEqual([]);
    // Every record reads back through the API.
    const listed = await server.call(
      'GET',
      `${Paths.getMetrics}?projectId=${me.projectId}&limit=10`,
      { key: me.apiKey },
    );
    expect(listed.statusCode).toBe(200);
    expect((listed.json().metrics as { id: string }[]).map((item) => item.id).sort()).toEqual(
      [...ids].sort(),
    );
  });

  it('retention drops a partition whose records are all past it, keeping the pinned and the statistics', async () => {
    const now = Date.now();
    // Partitioned as if made 200 days ago: monthly partitions then, the DEFAULT for the months
    // between, this month's made at the server's start.
    const database = await createTestDatabase({ empty: true });
    cleanups.push(() => database.drop());
    const sql = await openSql(database);
    await migrate(sql, pgMigrations);
    const then = now - 200 * DAY;
    await maintainPartitions(sql, then);
    const server = await started(database);
    const me = await server.account();
    const other = await server.account();
    const oldMonth = monthStart(then);
    const nextMonth = monthStart(then, 1);
    const records = [
      ...Array.from({ length: 40 }, (_, i) => metric(me.projectId, oldMonth + i * HOUR, i)),
      ...Array.from({ length: 40 }, (_, i) => event(me.projectId, oldMonth + i * HOUR)),
      ...Array.from({ length: 20 }, (_, i) => metric(me.projectId, nextMonth + i * HOUR, i)),
      // A project that keeps its records forever, in the next month's partition.
      metric(other.projectId, nextMonth + 5 * HOUR, 7),
      ...Array.from({ length: 10 }, (_, i) => metric(me.projectId, now - i * HOUR, i)),
    ];
    await server.app.storage.records.importBatch(records);
    // Test runs in the same months: this project's and, in the next month, the other's.
    const oldRun = await storeTestRun(server, me.projectId, oldMonth + HOUR, 'old', cases(20));
    const nextRun = await storeTestRun(server, me.projectId, nextMonth + HOUR, 'next', cases(5));
    const keptRun = await storeTestRun(server, other.projectId, nextMonth + HOUR, 'kept', cases(4));
    const newRun = await storeTestRun(server, me.projectId, now - HOUR, 'new', cases(6));
    expect((await resultPlaces(sql))[oldRun.key]?.parts).toEqual([
      `test_results_p${month(oldMonth)}`,
    ]);
    const pinned = records[3] as NewRecord;
    const pin = await server.call('POST', '/stats/pin-record', {
      key: me.apiKey,
      body: { projectId: me.projectId, kind: 'metric', id: pinned.row.id, pinned: true },
    });
    expect(pin.statusCode, pin.body).toBe(200);
    await foldStatistics(server, now);
    const before = await statistics(server, me.apiKey, me.projectId, oldMonth, 70);

    const set = await server.call('POST', '/stats/set-retention', {
      key: me.apiKey,
      body: { projectId: me.projectId, retentionDays: 30 },
    });
    expect(set.statusCode, set.body).toBe(200);
    const report = await server.app.services.retention.sweep(now);
    expect(report.partitionsDropped).toBe(3);
    const resultParts = (await partitionsOf(sql, 'test_results')).map((p) => p.name);
    expect(resultParts).not.toContain(`test_results_p${month(oldMonth)}`);
    expect(resultParts).toContain(`test_results_p${month(nextMonth)}`);
    // The dropped month's run went with its results; the next month's by batch; the others stay.
    const runsLeft = await sql<{ key: string }[]>`SELECT key FROM test_runs ORDER BY key`;
    expect(runsLeft.map((row) => row.key)).toEqual([keptRun.key, newRun.key].sort());
    const places = await resultPlaces(sql);
    expect(places[keptRun.key]?.n).toBe(4);
    expect(places[newRun.key]?.n).toBe(6);
    expect(places[nextRun.key]).toBeUndefined();
    const metricParts = (await partitionsOf(sql, 'metrics')).map((p) => p.name);
    const eventParts = (await partitionsOf(sql, 'events')).map((p) => p.name);
    expect(metricParts).not.toContain(`metrics_p${month(oldMonth)}`);
    expect(eventParts).not.toContain(`events_p${month(oldMonth)}`);
    // The other project's record keeps its partition; this project's records in it went by batch.
    expect(metricParts).toContain(`metrics_p${month(nextMonth)}`);
    const left = await sql<{ project: string; n: number }[]>`
      SELECT project_id AS project, count(*)::int AS n FROM metrics
       WHERE created_at < ${now - 30 * DAY} GROUP BY project_id ORDER BY project_id`;
    expect(Object.fromEntries(left.map((row) => [row.project, row.n]))).toEqual({
      [me.projectId]: 1,
      [other.projectId]: 1,
    });
    expect(await placeOf(sql, 'metrics', [pinned.row.id])).toEqual({
      [pinned.row.id]: 'metrics_default',
    });
    const [recent] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM metrics WHERE project_id = ${me.projectId}
         AND created_at >= ${now - 30 * DAY}`;
    expect(recent?.n).toBe(10);
    // The cells stay: the chart of the months dropped draws the same.
    expect(await statistics(server, me.apiKey, me.projectId, oldMonth, 70)).toEqual(before);
  });

  it('converts a database of plain tables online, with ingest beside it; every record and statistic kept', async () => {
    const now = Date.now();
    const database = await createTestDatabase({ empty: true });
    cleanups.push(() => database.drop());
    const sql = await openSql(database);
    // Migration 18's plain tables, 50,000 records over the last 90 days.
    await migrate(sql, pgMigrations);
    expect(await isPartitioned(sql, 'events')).toBe(false);
    const from = now - 90 * DAY;
    await sql`INSERT INTO accounts (id, label, created_at) VALUES ('a', NULL, 'now')`;
    await sql`INSERT INTO projects (id, account_id, name, name_key, created_at)
              VALUES ('p', 'a', 'Web', 'web', 'now'), ('q', 'a', 'Api', 'api', 'now')`;
    await sql`
      INSERT INTO metrics (id, project_id, payload, created_at, branch)
      SELECT 'm' || i, 'p', json_build_object('duration_ms', i % 1000)::text,
             ${from}::bigint + i::bigint * 311000, 'main'
        FROM generate_series(0, 24999) AS i ORDER BY i`;
    await sql`
      INSERT INTO events (id, project_id, event_type, payload, created_at, branch, status)
      SELECT 'e' || i, 'p', 'build', '{}', ${from}::bigint + i::bigint * 311000, 'main',
             (ARRAY['success', 'failure', 'cancelled', NULL])[i % 4 + 1]
        FROM generate_series(0, 24999) AS i ORDER BY i`;
    // A run of 5,000 results stored before migration 24 (their created_at reads 0).
    await sql`INSERT INTO test_runs (project_id, key, build_id, attempt, created_at)
              VALUES ('p', ${runIdOf('legacy', 1)}, 'legacy', 1, ${from})`;
    await sql`
      INSERT INTO test_results (run_id, test_id, duration_ms, status, attempts)
      SELECT (SELECT id FROM test_runs), i, i % 100, i % 3, 1 FROM generate_series(1, 5000) AS i`;
    await sql`ANALYZE metrics, events, test_results`;
    const fingerprint = async () =>
      sql<{ table: string; n: number; ids: string; seqs: number }[]>`
        SELECT 'events' AS table, count(*)::int AS n, md5(string_agg(id || ':' || created_at || ':' || payload, ',' ORDER BY seq)) AS ids, sum(seq)::float8 AS seqs
          FROM events WHERE project_id = 'p'
        UNION ALL
        SELECT 'metrics', count(*)::int, md5(string_agg(id || ':' || created_at || ':' || payload, ',' ORDER BY seq)), sum(seq)::float8
          FROM metrics WHERE project_id = 'p'
        UNION ALL
        SELECT 'test_results', count(*)::int, md5(string_agg(run_id || ':' || test_id || ':' || status || ':' || duration_ms, ',' ORDER BY run_id, test_id)), sum(test_id)::float8
          FROM test_results
        ORDER BY 1`;
    const stored = await fingerprint();

    // The server converts in the background from its start; ingest goes on meanwhile. The
    // seeded records' fold (CPU of this process, which would stall its requests as much as any
    // lock) waits until the conversion is done.
    const folds = await holdFolds(database);
    const server = await started(database);
    const created = await server.call('POST', '/admin/accounts/a/keys', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { label: 'test' },
    });
    const key = created.json().apiKey as string;
    const before = await statistics(server, key, 'p', monthStart(from), 100);
    const latencies: number[] = [];
    const statuses = new Set<number>();
    const acknowledged: string[] = [];
    let converting = true;
    const writer = async (n: number) => {
      for (let i = 0; converting; i++) {
        const asMetric = (i + n) % 2 === 0;
        const t = performance.now();
        const res = await server.call('POST', asMetric ? Paths.ingestMetrics : Paths.ingestEvents, {
          key,
          body: asMetric
            ? { projectId: 'q', payload: { duration_ms: i } }
            : { projectId: 'q', eventType: 'build', payload: { status: 'success' } },
        });
        latencies.push(performance.now() - t);
        statuses.add(res.statusCode);
        if (res.statusCode === 200) acknowledged.push(res.json().id as string);
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    const startedAt = performance.now();
    const done = async () =>
      (await isPartitioned(sql, 'events')) &&
      (await isPartitioned(sql, 'metrics')) &&
      (await isPartitioned(sql, 'test_results')) &&
      (await partitionsOf(sql, 'test_results')).some(
        (p) => p.name === `test_results_p${month(monthStart(now, MONTHS_AHEAD))}`,
      );
    for (const deadline = Date.now() + 150_000; !(await done()) && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const took = performance.now() - startedAt;
    converting = false;
    await Promise.all(writers);
    expect(await done()).toBe(true);
    console.log(
      `converted 50,000 records in ${took.toFixed(0)} ms with ${latencies.length} ingest requests beside; longest request ${Math.max(...latencies).toFixed(0)} ms`,
    );
    // No ingest refused, nothing lost or changed.
    expect([...statuses]).toEqual([200]);
    expect(await fingerprint()).toEqual(stored);
    const [q] = await sql<{ n: number }[]>`
      SELECT (SELECT count(*) FROM events WHERE project_id = 'q')
           + (SELECT count(*) FROM metrics WHERE project_id = 'q') AS n`;
    expect(q?.n).toBe(acknowledged.length);
    for (const table of ['events', 'metrics'] as const) {
      const parts = await partitionsOf(sql, table);
      const legacy = parts.find((p) => p.name.startsWith(`${table}_before_`));
      expect(legacy?.from).toBeNull();
      expect(legacy?.to).toBeGreaterThan(now);
      const [inside] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM ${sql(legacy?.name as string)} WHERE project_id = 'p'`;
      expect(inside?.n).toBe(25_000);
      // The triggers moved to the partitioned table: new records are queued for the fold.
      const triggers = await sql<{ on: string }[]>`
        SELECT DISTINCT tgrelid::regclass::text AS on FROM pg_trigger
         WHERE NOT tgisinternal AND tgrelid::regclass::text LIKE ${`${table}%`}`;
      expect(triggers.map((row) => row.on)).toEqual([table]);
    }
    const legacyResults = (await partitionsOf(sql, 'test_results')).find((p) =>
      p.name.startsWith('test_results_before_'),
    );
    expect(legacyResults?.to).toBeGreaterThan(now);
    expect((await resultPlaces(sql))[runIdOf('legacy', 1)]).toEqual({
      parts: [legacyResults?.name],
      n: 5_000,
    });
    // The old run goes on (a retry's results): merged into its results, in their partition,
    // none twice. A run of the first month past the partition of the past goes to its own.
    await storeTestRun(server, 'p', from + HOUR, 'legacy', cases(3));
    const later = monthStart(now, 2) + DAY;
    await storeTestRun(server, 'q', later, 'fresh', cases(3));
    const places = await resultPlaces(sql);
    expect(places[runIdOf('legacy', 1)]).toEqual({ parts: [legacyResults?.name], n: 5_000 });
    expect(places[runIdOf('fresh', 1)]).toEqual({ parts: [`test_results_p${month(later)}`], n: 3 });
    const retried = await sql<{ attempts: number }[]>`
      SELECT attempts FROM test_results r JOIN test_runs tr ON tr.id = r.run_id
       WHERE tr.key = ${runIdOf('legacy', 1)} AND r.test_id <= 3 ORDER BY r.test_id`;
    expect(retried.map((row) => row.attempts)).toEqual([2, 2, 2]);
    // Folded from the partitioned tables (a loaded machine takes a while for 53,000 records).
    await folds.release();
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
      const [queued] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM stats_queue`;
      if (queued?.n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const [queued] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM stats_queue`;
    expect(queued?.n).toBe(0);
    expect(await statistics(server, key, 'p', monthStart(from), 100)).toEqual(before);
    // The sequence goes on from where it was.
    const [next] = await sql<{ max: number }[]>`SELECT max(seq)::int AS max FROM metrics`;
    expect(next?.max).toBeGreaterThan(25_000);
  }, 180_000);
});
