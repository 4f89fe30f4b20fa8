import { describe, expect, it } from 'vitest';
import { SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import type { BuildSummary, MetricSeries } from '../../contract/stats-queries.js';
import { withoutIssues } from '../helpers/issues.js';
import {
  foldedMark,
  foldStatistics,
  holdFolds,
  seededRandom,
  storeEvent,
  storeMetric,
} from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Series and build summaries against answers computed here, independently, from the raw data. */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started));

const get = async <T>(path: string, query: Record<string, string | number>) => {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await server.call('GET', `${path}?${params}`, { key: me.apiKey });
  return { status: res.statusCode, body: res.json() as T };
};
const iso = (ms: number) => new Date(ms).toISOString();

interface Point {
  t: number;
  value: number;
  branch: string | null;
  order: number;
}

/** The expected buckets, computed the plain way: every point, sorted, nearest rank. */
function expectedSeries(points: Point[], from: number, to: number, count: number, branch?: string) {
  const span = to - from;
  const buckets = new Map<number, Point[]>();
  for (const point of points) {
    if (point.t < from || point.t >= to) continue;
    if (branch !== undefined && point.branch !== branch) continue;
    const index = Math.floor(((point.t - from) * count) / span);
    buckets.set(index, [...(buckets.get(index) ?? []), point]);
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, members]) => {
      const values = members.map((p) => p.value).sort((a, b) => a - b);
      // Nearest rank: x[⌈q·n⌉ − 1].
      const rank = (q: number) => values[Math.ceil(q * values.length) - 1] as number;
      const last = [...members].sort((a, b) => a.t - b.t || a.order - b.order).at(-1) as Point;
      return {
        start: iso(from + Math.ceil((index * span) / count)),
        end: iso(from + Math.ceil(((index + 1) * span) / count)),
        count: values.length,
        min: values[0],
        max: values.at(-1),
        avg: values.reduce((a, b) => a + b, 0) / values.length,
        p50: rank(0.5),
        p95: rank(0.95),
        last: last.value,
      };
    });
}

function expectSameSeries(
  actual: MetricSeries['buckets'],
  expected: ReturnType<typeof expectedSeries>,
) {
  expect(actual.map((b) => [b.start, b.end, b.count, b.min, b.max, b.last])).toEqual(
    expected.map((b) => [b.start, b.end, b.count, b.min, b.max, b.last]),
  );
  actual.forEach((bucket, i) => {
    const want = expected[i] as (typeof expected)[0];
    expect(bucket.avg).toBeCloseTo(want.avg, 9);
    // Percentiles: within 2 % of the exact value (zero exactly).
    expect(Math.abs(bucket.p50 - want.p50)).toBeLessThanOrEqual(Math.abs(want.p50) * 0.02 + 1e-12);
    expect(Math.abs(bucket.p95 - want.p95)).toBeLessThanOrEqual(Math.abs(want.p95) * 0.02 + 1e-12);
  });
}

const BASE = Date.parse('2026-11-01T00:00:00.000Z');
const HOUR = 3_600_000;
const BRANCHES = ['main', 'develop', null] as const;

/**
 * Both backends fold older records into cells (foldedMark says when): answers are checked before
 * and after a fold.
 */
const FOLDS = [false, true];

describe('GET /stats/get-metric-series', () => {
  it('matches the plain computation for any range, bucket count and branch', async () => {
    const held = await holdFolds(server.database);
    const random = seededRandom(42);
    const points: Point[] = [];
    // Three days of records at random milliseconds, three branches, some values negative or 0.
    for (let i = 0; i < 1500; i++) {
      const t = BASE + Math.floor(random() * 72 * HOUR);
      const value = i % 50 === 0 ? 0 : Math.round((random() * 2000 - 200) * 1000) / 1000;
      points.push({ t, value, branch: BRANCHES[i % 3] ?? null, order: i });
    }
    // Stored as they would arrive: in time order (a record's time never goes back), one durable
    // append after the other, which on PostgreSQL under CI's load took 31–35 s: the test's limit
    // is 90 s rather than the default 30.
    points.sort((a, b) => a.t - b.t || a.order - b.order);
    for (const { t, value, branch } of points) {
      const ci = branch === null ? {} : { ci: { branch } };
      await storeMetric(server, me.projectId, t, { duration_ms: value, ...ci });
    }
    const cases: [number, number, number, string | undefined][] = [
      [BASE, BASE + 72 * HOUR, 200, undefined],
      [BASE + 123_457, BASE + 61 * HOUR + 999, 7, undefined],
      [BASE + 90 * 60_000 + 17, BASE + 50 * HOUR - 33, 1000, 'main'],
      [BASE - 5 * HOUR, BASE + 80 * HOUR, 1, undefined],
      [BASE + 10 * HOUR, BASE + 10 * HOUR + 45 * 60_000, 13, 'develop'],
    ];
    const folded = () => foldedMark(server, 'metrics');
    const before = await folded();
    // Read from the records not folded yet, then from the cells: the same answers.
    for (const fold of FOLDS) {
      if (fold) {
        await held.release();
        await foldStatistics(server, BASE + 100 * HOUR);
      }
      expect((await folded()) === before).toBe(!fold);
      await checkCases(cases, points);
    }
  }, 90_000);

  async function checkCases(
    cases: [number, number, number, string | undefined][],
    points: Point[],
  ) {
    for (const [from, to, buckets, branch] of cases) {
      const res = await get<MetricSeries>(Paths.getMetricSeries, {
        projectId: me.projectId,
        key: 'duration_ms',
        from: iso(from),
        to: iso(to),
        buckets,
        ...(branch === undefined ? {} : { branch }),
      });
      expect(res.status).toBe(200);
      expect({ key: res.body.key, from: res.body.from, to: res.body.to }).toEqual({
        key: 'duration_ms',
        from: iso(from),
        to: iso(to),
      });
      expectSameSeries(res.body.buckets, expectedSeries(points, from, to, buckets, branch));
    }
  }

  it('puts a point exactly on an edge into the bucket that starts there; `to` is exclusive', async () => {
    const from = BASE;
    const to = BASE + 4 * HOUR;
    for (const [t, value] of [
      [from - 1, 98],
      [from, 1],
      [from + HOUR - 1, 3],
      [from + HOUR, 2],
      [to - 1, 4],
      [to, 99],
    ] as const) {
      await storeMetric(server, me.projectId, t, { v: value });
    }
    const res = await get<MetricSeries>(Paths.getMetricSeries, {
      projectId: me.projectId,
      key: 'v',
      from: iso(from),
      to: iso(to),
      buckets: 4,
    });
    expect(res.body.buckets.map((b) => [b.start, b.count, b.min, b.max])).toEqual([
      [iso(from), 2, 1, 3],
      [iso(from + HOUR), 1, 2, 2],
      [iso(from + 3 * HOUR), 1, 4, 4],
    ]);
  });

  it('reads nested keys; ignores strings, booleans, arrays, non-finite; one point is a bucket', async () => {
    await storeMetric(server, me.projectId, BASE + 1000, {
      tests: { failed: 2, passed: 40, suite: 'unit', flaky: true, times: [1, 2, 3] },
      size: '12kB',
    });
    const keys = await get<{ keys: { key: string; count: number; last_value: number }[] }>(
      Paths.getMetricKeys,
      { projectId: me.projectId },
    );
    expect(keys.body.keys.map((k) => k.key)).toEqual(['tests.failed', 'tests.passed']);
    const single = await get<MetricSeries>(Paths.getMetricSeries, {
      projectId: me.projectId,
      key: 'tests.failed',
      from: iso(BASE),
      to: iso(BASE + HOUR),
      buckets: 60,
    });
    expect(single.body.buckets).toEqual([
      {
        start: iso(BASE),
        end: iso(BASE + 60_000),
        count: 1,
        min: 2,
        max: 2,
        avg: 2,
        // Percentiles lie between min and max: one value is exact.
        p50: 2,
        p95: 2,
        last: 2,
      },
    ]);
    const missing = await get<MetricSeries>(Paths.getMetricSeries, {
      projectId: me.projectId,
      key: 'tests.times',
      from: iso(BASE),
      to: iso(BASE + HOUR),
    });
    expect(missing.body.buckets).toEqual([]);
  });

  it('defaults to the last 30 days, 100 buckets; validates its query', async () => {
    await server.call('POST', Paths.ingestMetrics, {
      key: me.apiKey,
      body: { projectId: me.projectId, payload: { ms: 5 } },
    });
    const res = await get<MetricSeries>(Paths.getMetricSeries, {
      projectId: me.projectId,
      key: 'ms',
    });
    expect(Date.parse(res.body.to) - Date.parse(res.body.from)).toBe(30 * 24 * HOUR);
    expect(res.body.buckets).toHaveLength(1);
    expect(res.body.buckets[0]).toMatchObject({ count: 1, last: 5 });

    for (const [query, error] of [
      [{ key: 'ms' }, SpecError.projectIdRequired],
      [{ projectId: me.projectId }, SpecError.invalidBody],
      [{ projectId: me.projectId, key: 'ms', buckets: 0 }, SpecError.invalidBody],
      [{ projectId: me.projectId, key: 'ms', buckets: 1001 }, SpecError.invalidBody],
      [{ projectId: me.projectId, key: 'ms', from: 'yesterday' }, SpecError.invalidBody],
      [
        { projectId: me.projectId, key: 'ms', from: iso(BASE + 1), to: iso(BASE) },
        SpecError.invalidBody,
      ],
    ] as const) {
      const bad = await get(Paths.getMetricSeries, query as Record<string, string>);
      expect({ status: bad.status, body: withoutIssues(bad.body) }).toEqual({
        status: 400,
        body: { error },
      });
    }
    const other = await server.account();
    const foreign = await get(Paths.getMetricSeries, { projectId: other.projectId, key: 'ms' });
    expect({ status: foreign.status, body: foreign.body }).toEqual({
      status: 403,
      body: { error: SpecError.forbiddenProject },
    });
  });
});

describe('GET /stats/get-metric-keys', () => {
  it('counts each key and keeps its latest value (the later record on a tie)', async () => {
    await storeMetric(server, me.projectId, BASE + 10, { a: 1, nested: { b: 7 } });
    await storeMetric(server, me.projectId, BASE + 20, { a: 2 });
    await storeMetric(server, me.projectId, BASE + 30, { a: 3 });
    await storeMetric(server, me.projectId, BASE + 30, { a: 4 });
    // Ties inside one group commit too (stored in the same turn of the event loop).
    await Promise.all([
      storeMetric(server, me.projectId, BASE + 40, { c: 1 }),
      storeMetric(server, me.projectId, BASE + 40, { c: 2 }),
    ]);
    const series = await get<MetricSeries>(Paths.getMetricSeries, {
      projectId: me.projectId,
      key: 'c',
      from: iso(BASE),
      to: iso(BASE + HOUR),
      buckets: 1,
    });
    expect(series.body.buckets[0]).toMatchObject({ count: 2, last: 2 });
    const res = await get<{ keys: unknown[] }>(Paths.getMetricKeys, { projectId: me.projectId });
    expect(res.body).toEqual({
      keys: [
        { key: 'a', count: 4, last_value: 4, last_at: iso(BASE + 30), unit: null, direction: null },
        { key: 'c', count: 2, last_value: 2, last_at: iso(BASE + 40), unit: null, direction: null },
        {
          key: 'nested.b',
          count: 1,
          last_value: 7,
          last_at: iso(BASE + 10),
          unit: null,
          direction: null,
        },
      ],
      nextCursor: null,
    });
  });
});

describe('GET /stats/get-build-summary', () => {
  it('counts events by status per bucket; the success rate ignores cancelled and other', async () => {
    const held = await holdFolds(server.database);
    const random = seededRandom(7);
    const statuses = ['success', 'success', 'failure', 'cancelled', 'skipped', null] as const;
    const events: { t: number; status: string | null; branch: string | null; type: string }[] = [];
    const times = Array.from({ length: 600 }, () => BASE + Math.floor(random() * 30 * HOUR));
    times.sort((a, b) => a - b);
    for (let i = 0; i < 600; i++) {
      const t = times[i] as number;
      const status = statuses[i % statuses.length] ?? null;
      const branch = BRANCHES[i % 3] ?? null;
      const type = i % 4 === 0 ? 'deploy' : 'build';
      const payload = {
        ...(status === null ? {} : { status }),
        ...(branch === null ? {} : { github: { ref: `refs/heads/${branch}` } }),
      };
      await storeEvent(server, me.projectId, t, type, payload);
      events.push({ t, status, branch, type });
    }
    const from = BASE + 77_777;
    const to = BASE + 25 * HOUR + 1;
    const cases = [
      [24, undefined, undefined],
      [100, 'main', undefined],
      [5, undefined, 'deploy'],
    ] as const;
    // From the events not folded yet, then from the cells.
    const folded = () => foldedMark(server, 'events');
    const before = await folded();
    for (const [fold, [count, branch, type]] of FOLDS.flatMap((fold) =>
      cases.map((c) => [fold, c] as const),
    )) {
      if (fold && (await folded()) === before) {
        await held.release();
        await foldStatistics(server, BASE + 100 * HOUR);
        expect(await folded()).not.toBe(before);
      }
      const res = await get<BuildSummary>(Paths.getBuildSummary, {
        projectId: me.projectId,
        from: iso(from),
        to: iso(to),
        buckets: count,
        ...(branch ? { branch } : {}),
        ...(type ? { eventType: type } : {}),
      });
      const expected = new Map<number, Record<string, number>>();
      let success = 0;
      let failure = 0;
      for (const event of events) {
        if (event.t < from || event.t >= to) continue;
        if (branch && event.branch !== branch) continue;
        if (type && event.type !== type) continue;
        const index = Math.floor(((event.t - from) * count) / (to - from));
        const sums = expected.get(index) ?? { success: 0, failure: 0, cancelled: 0, other: 0 };
        const column = ['success', 'failure', 'cancelled'].includes(event.status ?? '')
          ? (event.status as string)
          : 'other';
        sums[column] = (sums[column] as number) + 1;
        expected.set(index, sums);
        if (event.status === 'success') success += 1;
        if (event.status === 'failure') failure += 1;
      }
      const span = to - from;
      expect(res.body.buckets).toEqual(
        [...expected.entries()]
          .sort(([a], [b]) => a - b)
          .map(([index, sums]) => ({
            start: iso(from + Math.ceil((index * span) / count)),
            end: iso(from + Math.ceil(((index + 1) * span) / count)),
            ...sums,
          })),
      );
      expect(res.body.success_rate).toBeCloseTo(success / (success + failure), 12);
    }
    const none = await get<BuildSummary>(Paths.getBuildSummary, {
      projectId: me.projectId,
      from: iso(BASE - 10 * HOUR),
      to: iso(BASE - HOUR),
    });
    expect(none.body).toMatchObject({ buckets: [], success_rate: null });
  });
});
