import { describe, expect, it, vi } from 'vitest';
import { selectColumn } from '../helpers/database.js';
import { foldStatistics, seededRandom, storeEvent, storeMetric } from '../helpers/seed-records.js';
import { storeTestRun } from '../helpers/seed-tests.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { onPostgres } from '../helpers/test-database.js';

/**
 * Retention per project (docs/operations.md, Retention), on the backend of the Vitest project:
 * records past it are deleted in short batches while ingest goes on, pinned ones stay, the
 * statistics cells stay (a chart of the deleted period draws the same at hourly resolution), and
 * SQLite gives the space back.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const post = (path: string, body: unknown, key = me.apiKey) =>
  server.call('POST', path, { key, body });

/** The statistics of a range whose edges are whole hours, one bucket an hour. */
async function hourly(from: number, hours: number) {
  const range = `projectId=${me.projectId}&from=${new Date(from).toISOString()}&to=${new Date(from + hours * HOUR).toISOString()}&buckets=${hours}`;
  const get = async (path: string, extra = '') => {
    const res = await server.call('GET', `${path}?${range}${extra}`, { key: me.apiKey });
    expect(res.statusCode, path).toBe(200);
    return res.json();
  };
  return {
    builds: await get('/stats/get-build-summary'),
    duration: await get('/stats/get-metric-series', '&key=duration_ms'),
  };
}

/** The batches' sizes as docs/operations.md (Retention) gives them, in records. */
const FIRST_BATCH = 50;
const BATCH_GROWTH = 1.5;
const MAX_BATCH = 5_000;
/** And the steps that give freed pages back to the file (SQLite), in pages. */
const RECLAIM_STEP = 200;

/** One batch of a sweep as the storage was asked it: how many it might delete, how many it did. */
interface Batch {
  limit: number;
  deleted: number;
}

/**
 * Runs a sweep while watching each batch it asks of the real storage (records and test results,
 * in the order asked) and each step giving space back. What keeps the database free for ingest
 * is that every one is a short transaction: a bounded number of rows or pages, not the whole past
 * at once. Its time depends on the machine (a benchmark's to measure), its size does not.
 */
async function sweepWatched(now?: number) {
  const retention = server.app.storage.retention;
  const batches: Batch[] = [];
  const reclaims: number[] = [];
  const deleteBatch = retention.deleteBatch.bind(retention);
  const deleteTestBatch = retention.deleteTestBatch.bind(retention);
  const reclaim = retention.reclaim.bind(retention);
  const spies = [
    vi.spyOn(retention, 'deleteBatch').mockImplementation(async (...args) => {
      const batch = await deleteBatch(...args);
      batches.push({ limit: args[4], deleted: batch.deleted });
      return batch;
    }),
    vi.spyOn(retention, 'deleteTestBatch').mockImplementation(async (...args) => {
      const batch = await deleteTestBatch(...args);
      batches.push({ limit: args[2], deleted: batch.deleted });
      return batch;
    }),
    vi.spyOn(retention, 'reclaim').mockImplementation(async (pages) => {
      reclaims.push(pages);
      return reclaim(pages);
    }),
  ];
  try {
    const report = await server.app.services.retention.sweep(now);
    return { report, batches, reclaims };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/**
 * The batches' sizes as docs/operations.md gives them, whatever the machine's speed: the first
 * of 50 records, each next at most half as large again (halved after a slow one), never more than
 * 5,000, and no batch deleting more than it was sized for.
 */
function expectShortBatches(
  { batches, reclaims }: { batches: Batch[]; reclaims: number[] },
  report: { batches: number; deleted: number },
) {
  expect(batches).toHaveLength(report.batches);
  expect(batches.reduce((n, b) => n + b.deleted, 0)).toBe(report.deleted);
  expect(batches[0]?.limit).toBe(FIRST_BATCH);
  batches.forEach((batch, i) => {
    expect(batch.deleted, `batch ${i}`).toBeLessThanOrEqual(batch.limit);
    expect(batch.limit, `batch ${i}`).toBeLessThanOrEqual(MAX_BATCH);
    const before = batches[i - 1];
    if (before) {
      expect(batch.limit, `batch ${i}`).toBeLessThanOrEqual(Math.ceil(before.limit * BATCH_GROWTH));
    }
  });
  // Space goes back after something was deleted, in steps of at most 200 pages.
  if (report.deleted > 0) expect(reclaims.length).toBeGreaterThan(0);
  for (const pages of reclaims) expect(pages).toBeLessThanOrEqual(RECLAIM_STEP);
}

describe('retention', () => {
  it('deletes what is past it in short batches beside ingest; pinned records and the statistics stay', async () => {
    const now = Date.now();
    const random = seededRandom(7);
    // 1,600 events and as many metrics between 60 and 35 days ago, 100 of each in the last week.
    const oldFrom = Math.floor((now - 60 * DAY) / HOUR) * HOUR;
    const stored = async (count: number, from: number, span: number) => {
      for (let i = 0; i < count; i += 100) {
        await Promise.all(
          Array.from({ length: Math.min(100, count - i) }, async () => {
            const at = from + Math.floor(random() * span);
            const status = random() < 0.7 ? 'success' : 'failure';
            await storeEvent(server, me.projectId, at, 'build', { status });
            await storeMetric(server, me.projectId, at, {
              duration_ms: Math.round(random() * 1e4),
            });
          }),
        );
      }
    };
    await stored(1600, oldFrom, 25 * DAY);
    await stored(100, now - 7 * DAY, 6 * DAY);
    await foldStatistics(server, now);

    const oldEvents = (await selectColumn(
      server.database,
      'SELECT id FROM events WHERE project_id = ? AND created_at < ? ORDER BY seq',
      me.projectId,
      now - 30 * DAY,
    )) as string[];
    const oldMetrics = (await selectColumn(
      server.database,
      'SELECT id FROM metrics WHERE project_id = ? AND created_at < ? ORDER BY seq',
      me.projectId,
      now - 30 * DAY,
    )) as string[];
    expect(oldEvents).toHaveLength(1600);
    const pinnedEvent = oldEvents[17] as string;
    const pinnedMetric = oldMetrics[1234] as string;
    for (const [kind, id] of [
      ['event', pinnedEvent],
      ['metric', pinnedMetric],
    ]) {
      const pinned = await post('/stats/pin-record', { projectId: me.projectId, kind, id });
      expect(pinned.statusCode).toBe(200);
      expect(pinned.json()).toEqual({ id, kind, pinned: true });
    }

    const hours = 26 * 24;
    const before = await hourly(oldFrom, hours);
    expect(
      before.builds.buckets.reduce(
        (n: number, b: { success: number; failure: number }) => n + b.success + b.failure,
        0,
      ),
    ).toBe(1600);
    const recentEvents = await selectColumn(
      server.database,
      'SELECT count(*) FROM events WHERE project_id = ? AND created_at >= ?',
      me.projectId,
      now - 30 * DAY,
    );
    const pagesBefore = onPostgres
      ? 0
      : Number((await selectColumn(server.database, 'PRAGMA page_count'))[0]);

    const set = await post('/stats/set-retention', { projectId: me.projectId, retentionDays: 30 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ projectId: me.projectId, retentionDays: 30 });
    const got = await server.call('GET', `/stats/get-retention?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(got.json()).toEqual({ projectId: me.projectId, retentionDays: 30 });

    // Ingest beside the sweep: every request answered, every record stored.
    let ingesting = true;
    const acknowledged: string[] = [];
    const writer = async () => {
      while (ingesting) {
        const res = await post('/stats/ingest-events', {
          projectId: me.projectId,
          eventType: 'build',
          payload: { status: 'success' },
        });
        expect(res.statusCode).toBe(200);
        acknowledged.push(res.json().id);
      }
    };
    const writers = [writer(), writer()];
    const watched = await sweepWatched();
    const { report, batches } = watched;
    ingesting = false;
    await Promise.all(writers);

    expect(report.deleted).toBe(2 * 1600 - 2);
    expect(report.batches).toBeGreaterThan(2);
    expectShortBatches(watched, report);
    // So neither table's 1,599 past records went in one transaction.
    expect(Math.max(...batches.map((b) => b.deleted))).toBeLessThan(1599);
    expect(acknowledged.length).toBeGreaterThan(0);

    expect(
      await selectColumn(
        server.database,
        'SELECT id FROM events WHERE project_id = ? AND created_at < ?',
        me.projectId,
        now - 30 * DAY,
      ),
    ).toEqual([pinnedEvent]);
    expect(
      await selectColumn(
        server.database,
        'SELECT id FROM metrics WHERE project_id = ? AND created_at < ?',
        me.projectId,
        now - 30 * DAY,
      ),
    ).toEqual([pinnedMetric]);
    const kept = new Set(
      await selectColumn(
        server.database,
        'SELECT id FROM events WHERE project_id = ? AND created_at >= ?',
        me.projectId,
        now - 30 * DAY,
      ),
    );
    expect(kept.size).toBe(Number(recentEvents[0]) + acknowledged.length);
    for (const id of acknowledged) expect(kept.has(id)).toBe(true);

    // The deleted period's chart, hour by hour, from the cells that stayed.
    expect(await hourly(oldFrom, hours)).toEqual(before);

    if (!onPostgres) {
      // The space is given back: the file shrank and holds no free pages.
      expect(Number((await selectColumn(server.database, 'PRAGMA freelist_count'))[0])).toBe(0);
      expect(Number((await selectColumn(server.database, 'PRAGMA page_count'))[0])).toBeLessThan(
        pagesBefore,
      );
    }

    // A second sweep has nothing left to delete.
    expect((await server.app.services.retention.sweep()).deleted).toBe(0);
  }, 120_000);

  it('deletes test runs past it with their results, a run across several batches', async () => {
    const now = Date.now();
    const other = await server.account();
    // 120 cases a run: more than a first batch (50), so a run's results span batches.
    const cases = Array.from({ length: 120 }, (_, i) => ({
      suite: 'kept',
      name: `case ${i}`,
      duration_ms: i,
      status: i % 10 === 0 ? ('failed' as const) : ('passed' as const),
    }));
    for (const [build, daysAgo] of [
      ['old-1', 40],
      ['old-2', 35],
      ['old-3', 31],
      ['new-1', 5],
      ['new-2', 0],
    ] as const) {
      await storeTestRun(server, me.projectId, now - daysAgo * DAY, build, cases);
    }
    // Another project, without retention: its old run stays.
    await storeTestRun(server, other.projectId, now - 60 * DAY, 'theirs', cases);
    expect(
      (await post('/stats/set-retention', { projectId: me.projectId, retentionDays: 30 }))
        .statusCode,
    ).toBe(200);

    const watched = await sweepWatched(now);
    const { report, batches } = watched;
    expect(report.testRuns).toBe(3);
    expect(report.deleted).toBe(3 * 120);
    expectShortBatches(watched, report);
    // So the 360 past results went in several transactions.
    expect(Math.max(...batches.map((b) => b.deleted))).toBeLessThan(3 * 120);
    const runsOf = (projectId: string) =>
      selectColumn(
        server.database,
        'SELECT build_id FROM test_runs WHERE project_id = ? ORDER BY created_at',
        projectId,
      );
    expect(await runsOf(me.projectId)).toEqual(['new-1', 'new-2']);
    expect(await runsOf(other.projectId)).toEqual(['theirs']);
    const resultsOf = async (projectId: string) =>
      Number(
        (
          await selectColumn(
            server.database,
            `SELECT count(*) FROM test_results r JOIN test_runs t ON t.id = r.run_id
              WHERE t.project_id = ?`,
            projectId,
          )
        )[0],
      );
    expect(await resultsOf(me.projectId)).toBe(2 * 120);
    expect(await resultsOf(other.projectId)).toBe(120);
    // No result is left without its run.
    expect(
      Number(
        (
          await selectColumn(
            server.database,
            'SELECT count(*) FROM test_results WHERE run_id NOT IN (SELECT id FROM test_runs)',
          )
        )[0],
      ),
    ).toBe(0);
    // A second sweep has nothing left to delete.
    expect((await server.app.services.retention.sweep(now)).deleted).toBe(0);
  });

  it('refuses a bad retention or pin with 400 naming the field, and foreign projects with 403', async () => {
    for (const retentionDays of [0, -1, 1.5, 36_501, '30']) {
      const res = await post('/stats/set-retention', { projectId: me.projectId, retentionDays });
      expect(res.statusCode).toBe(400);
      expect(res.json().issues.map((i: { path: string }) => i.path)).toEqual(['retentionDays']);
    }
    expect((await post('/stats/set-retention', { projectId: me.projectId })).statusCode).toBe(400);
    const other = await server.account();
    expect(
      (await post('/stats/set-retention', { projectId: other.projectId, retentionDays: 5 }))
        .statusCode,
    ).toBe(403);
    expect(
      (await post('/stats/pin-record', { projectId: me.projectId, kind: 'build', id: 'x' })).json()
        .issues[0].path,
    ).toBe('kind');
    const missing = await post('/stats/pin-record', {
      projectId: me.projectId,
      kind: 'event',
      id: 'nope',
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Record not found.' });
    // A record of another project cannot be pinned through this one.
    const theirs = await server.call('POST', '/stats/ingest-events', {
      key: other.apiKey,
      body: { projectId: other.projectId, eventType: 'build' },
    });
    const foreign = await post('/stats/pin-record', {
      projectId: me.projectId,
      kind: 'event',
      id: theirs.json().id,
    });
    expect(foreign.statusCode).toBe(404);
    // Unset again: kept forever.
    expect(
      (await post('/stats/set-retention', { projectId: me.projectId, retentionDays: null })).json(),
    ).toEqual({ projectId: me.projectId, retentionDays: null });
  });
});
