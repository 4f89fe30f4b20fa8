import { beforeEach, describe, expect, it } from 'vitest';
import { SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import type { EventPage, MetricPage } from '../../contract/readback.js';
import { withoutIssues } from '../helpers/issues.js';
import { storeEvent, storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** get-events and get-metrics filtered by type, status, branch and time, with paging. */

let server: TestServer;
let me: TestAccount;

// Paging through hundreds of records takes more reads than a key's burst: no read limit here
// (it has its own tests, rate-limits.test.ts).
eachTestServer((started) => ({ server, me } = started), { RATE_LIMIT_OTHER_PER_MINUTE: '0' });

const BASE = Date.parse('2026-11-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

async function page<T>(
  path: string,
  query: Record<string, string | number>,
): Promise<{ status: number; body: T }> {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await server.call('GET', `${path}?${params}`, { key: me.apiKey });
  return { status: res.statusCode, body: res.json() as T };
}

/** Every page of a filtered listing, following nextCursor. */
async function all(path: string, query: Record<string, string | number>) {
  const seen: { id: string; payload: unknown; created_at: string }[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: EventPage & MetricPage } = await page(path, {
      ...query,
      limit: 3,
      ...(cursor ? { cursor } : {}),
    });
    expect(res.status).toBe(200);
    seen.push(...(res.body.events ?? res.body.metrics));
    cursor = res.body.nextCursor;
  } while (cursor);
  return seen;
}

const ns = (records: { payload: unknown }[]) => records.map((r) => (r.payload as { n: number }).n);

describe('filters', () => {
  beforeEach(async () => {
    const rows: [number, string, Record<string, unknown>][] = [
      [BASE, 'build', { n: 0, status: 'success', ci: { branch: 'main' } }],
      [BASE + 1000, 'build', { n: 1, status: 'failure', ci: { branch: 'main' } }],
      [BASE + 2000, 'deploy', { n: 2, status: 'success', github: { ref: 'refs/heads/main' } }],
      [BASE + 3000, 'build', { n: 3, status: 'success', github: { ref: 'refs/heads/feature/x' } }],
      [BASE + 4000, 'build', { n: 4, status: 'cancelled', github: { ref: 'refs/tags/v1' } }],
      [
        BASE + 5000,
        'build',
        { n: 5, status: 'success', ci: { branch: 'main' }, github: { ref: 'refs/heads/other' } },
      ],
      [BASE + 6000, 'build', { n: 6 }],
    ];
    for (const [t, type, payload] of rows) {
      await storeEvent(server, me.projectId, t, type, payload);
      await storeMetric(server, me.projectId, t, payload);
    }
  });

  it('each filter alone, and combined with AND, across pages, newest first', async () => {
    const q = { projectId: me.projectId };
    expect(ns(await all(Paths.getEvents, q))).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect(ns(await all(Paths.getEvents, { ...q, eventType: 'build' }))).toEqual([
      6, 5, 4, 3, 1, 0,
    ]);
    expect(ns(await all(Paths.getEvents, { ...q, status: 'success' }))).toEqual([5, 3, 2, 0]);
    // ci.branch first, else the ref's branch; tags have none.
    expect(ns(await all(Paths.getEvents, { ...q, branch: 'main' }))).toEqual([5, 2, 1, 0]);
    expect(ns(await all(Paths.getEvents, { ...q, branch: 'feature/x' }))).toEqual([3]);
    expect(
      ns(await all(Paths.getEvents, { ...q, from: iso(BASE + 1000), to: iso(BASE + 4000) })),
    ).toEqual([3, 2, 1]);
    expect(
      ns(
        await all(Paths.getEvents, {
          ...q,
          eventType: 'build',
          status: 'success',
          branch: 'main',
          from: iso(BASE + 1),
        }),
      ),
    ).toEqual([5]);
    expect(ns(await all(Paths.getMetrics, { ...q, branch: 'main', to: iso(BASE + 2001) }))).toEqual(
      [2, 1, 0],
    );
  });

  it('a bad filter is 400 with the endpoint’s text', async () => {
    for (const [path, query, error] of [
      [Paths.getEvents, { from: 'soon' }, SpecError.invalidBody],
      [Paths.getEvents, { from: iso(BASE + 5), to: iso(BASE) }, SpecError.invalidBody],
      [Paths.getMetrics, { to: '2026-13-01T00:00:00Z' }, SpecError.invalidBody],
      [Paths.getEvents, { eventType: '' }, SpecError.invalidBody],
    ] as const) {
      const res = await page(path, { projectId: me.projectId, ...query });
      expect({ status: res.status, body: withoutIssues(res.body) }).toEqual({
        status: 400,
        body: { error },
      });
    }
  });
});

describe('time ranges', () => {
  const MINUTE = 60_000;

  it('stay exact across minutes and hours, whatever minutes have no records', async () => {
    const other = await server.account();
    // Records of two projects, interleaved, over three hours with gaps of whole minutes.
    const times: number[] = [];
    for (let t = BASE - 3 * MINUTE; t < BASE + 3 * 60 * MINUTE; t += 7 * MINUTE + 13_001) {
      times.push(t, t + 1, t + MINUTE - 1);
    }
    for (const [n, t] of times.entries()) {
      await storeMetric(server, me.projectId, t, { n });
      await storeEvent(server, other.projectId, t, 'build', { n });
      await storeEvent(server, me.projectId, t, 'build', { n });
    }
    const edges = [BASE, BASE + 1, BASE + MINUTE, BASE + 61 * MINUTE - 1, BASE + 2 * 60 * MINUTE];
    for (const from of edges) {
      for (const to of [...edges, BASE + 5 * 60 * MINUTE].filter((to) => to > from)) {
        const want = times
          .map((t, n) => [t, n] as const)
          .filter(([t]) => t >= from && t < to)
          .map(([, n]) => n)
          .reverse();
        const range = { projectId: me.projectId, from: iso(from), to: iso(to) };
        expect(ns(await all(Paths.getEvents, range))).toEqual(want);
        expect(ns(await all(Paths.getMetrics, range))).toEqual(want);
      }
    }
  });

  it('a clock that steps back holds the time still: a record is never before the last one', async () => {
    await storeMetric(server, me.projectId, BASE + 5 * MINUTE, { n: 0 });
    await storeMetric(server, me.projectId, BASE + MINUTE, { n: 1 });
    await storeMetric(server, me.projectId, BASE + 6 * MINUTE, { n: 2 });
    const stored = await all(Paths.getMetrics, { projectId: me.projectId });
    expect(stored.map((m) => m.created_at)).toEqual([
      iso(BASE + 6 * MINUTE),
      iso(BASE + 5 * MINUTE),
      iso(BASE + 5 * MINUTE),
    ]);
    const range = { projectId: me.projectId, from: iso(BASE), to: iso(BASE + 5 * MINUTE + 1) };
    expect(ns(await all(Paths.getMetrics, range))).toEqual([1, 0]);
  });
});
