import { describe, expect, it } from 'vitest';
import { OwnError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import type { MetricKeys } from '../../contract/stats-queries.js';
import { foldStatistics, storeMetric } from '../helpers/seed-records.js';
import {
  eachTestServer,
  startTestServer,
  type TestAccount,
  type TestServer,
} from '../helpers/server.js';
import { connect, onPostgres } from '../helpers/test-database.js';

/**
 * Bounded work per request (issue 22, part 1): key lists come in pages, a series or build summary
 * that would read too many cells is refused, the statistics page draws at most 12 charts and lists
 * 50 keys a page, and on PostgreSQL a statistics read past READ_TIMEOUT_MS is a clear 503.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const DAY = 86_400_000;
const query = (path: string, params: Record<string, string | number>) =>
  `${path}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`;
const get = (key: string, path: string, params: Record<string, string | number>) =>
  server.call('GET', query(path, params), { key });

/** UTF-8 byte order, computed independently of the server's comparator. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * Stores `count` distinct series keys in records of 90 keys each (ASCII, accented letters, a
 * private-use character and one beyond U+FFFF, whose UTF-16 and UTF-8 orders differ), half of the
 * records folded into the statistics and half not yet. Returns the keys.
 */
async function storeKeys(projectId: string, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => {
    const stem = ['k', 'é', '\uE000', '😀'][i % 4] as string;
    return `${stem}${String(i).padStart(4, '0')}`;
  });
  const t0 = Date.now() - DAY;
  const records: Record<string, number>[] = [];
  for (let i = 0; i < names.length; i += 90) {
    records.push(Object.fromEntries(names.slice(i, i + 90).map((name, j) => [name, i + j])));
  }
  const half = Math.ceil(records.length / 2);
  for (const [i, payload] of records.slice(0, half).entries()) {
    await storeMetric(server, projectId, t0 + i * 1000, payload);
  }
  await foldStatistics(server, t0 + half * 1000);
  for (const [i, payload] of records.slice(half).entries()) {
    await storeMetric(server, projectId, t0 + (half + i) * 1000, payload);
  }
  return names;
}

describe('GET /stats/get-metric-keys, a page at a time', () => {
  it('answers 200 keys by default, then the rest by nextCursor, each once, in UTF-8 byte order', async () => {
    const names = await storeKeys(me.projectId, 450);
    const first = await get(me.apiKey, Paths.getMetricKeys, { projectId: me.projectId });
    expect(first.statusCode).toBe(200);
    const page = first.json() as MetricKeys;
    expect(page.keys).toHaveLength(200);
    expect(page.nextCursor).toEqual(expect.any(String));
    const seen = [...page.keys];
    let cursor = page.nextCursor;
    while (cursor !== null) {
      const next = (
        await get(me.apiKey, Paths.getMetricKeys, { projectId: me.projectId, limit: 150, cursor })
      ).json() as MetricKeys;
      expect(next.keys.length).toBeLessThanOrEqual(150);
      seen.push(...next.keys);
      cursor = next.nextCursor;
    }
    expect(seen.map((k) => k.key)).toEqual([...names].sort(byBytes));
    const k7 = seen.find((k) => k.key === names[7]);
    expect(k7).toMatchObject({ count: 1, last_value: 7 });
  });

  it('refuses a limit beyond 1,000 or a cursor that is not one of its own, naming them', async () => {
    await storeKeys(me.projectId, 5);
    const all = await get(me.apiKey, Paths.getMetricKeys, { projectId: me.projectId, limit: 1000 });
    expect((all.json() as MetricKeys).keys).toHaveLength(5);
    expect((all.json() as MetricKeys).nextCursor).toBeNull();
    for (const [params, field] of [
      [{ limit: 1001 }, 'limit'],
      [{ limit: 0 }, 'limit'],
      [{ cursor: '!!' }, 'cursor'],
      [{ cursor: '' }, 'cursor'],
    ] as const) {
      const res = await get(me.apiKey, Paths.getMetricKeys, { projectId: me.projectId, ...params });
      expect(res.statusCode).toBe(400);
      const body = res.json() as { error: string; issues: { path: string }[] };
      expect(body.issues.map((issue) => issue.path)).toContain(field);
    }
  });
});

describe('the read budget of a series and a build summary', () => {
  it('refuses 5 years in 1,000 buckets with a 400 naming buckets, and serves 5 years in 100', async () => {
    const to = Date.now();
    const from = to - 5 * 366 * DAY + 60_000;
    await storeMetric(server, me.projectId, to - DAY, { duration_ms: 5 });
    const range = { projectId: me.projectId, from: new Date(from).toISOString() };
    for (const path of [Paths.getMetricSeries, Paths.getBuildSummary]) {
      const key: Record<string, string> =
        path === Paths.getMetricSeries ? { key: 'duration_ms' } : {};
      const refused = await get(me.apiKey, path, { ...range, ...key, buckets: 1000 });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: OwnError.readBudget });
      expect(OwnError.readBudget).toMatch(/^buckets: /);
      const served = await get(me.apiKey, path, { ...range, ...key, buckets: 100 });
      expect(served.statusCode).toBe(200);
    }
  });
});

describe('the statistics page draws at most 12 charts and lists 50 keys a page', () => {
  const share = async () =>
    (
      (
        await server.call('POST', Paths.createShareLink, {
          key: me.apiKey,
          body: { projectId: me.projectId },
        })
      ).json() as { token: string }
    ).token;
  const rows = (html: string) => [...html.matchAll(/data-draw-key="([^"]*)"/g)].map((m) => m[1]);
  const charts = (html: string) =>
    [...html.matchAll(/class="chart" data-key="([^"]*)"/g)].map((m) => m[1]);
  const htmlDecoded = (text: string) => text.replace(/&amp;/g, '&');

  it('pages the key list, draws the first 12 of a page, and draws any listed key on demand', async () => {
    const names = [...(await storeKeys(me.projectId, 130))].sort(byBytes);
    const token = await share();
    const first = await server.app.inject({ method: 'GET', url: `/share/${token}` });
    expect(first.statusCode).toBe(200);
    expect(rows(first.body)).toEqual(names.slice(0, 50));
    expect(charts(first.body)).toEqual(names.slice(0, 12));
    const more = /href="([^"]+)"[^>]*>More keys</.exec(first.body.replace(/rel="next" /g, ''));
    expect(more).not.toBeNull();
    const second = await server.app.inject({
      method: 'GET',
      url: htmlDecoded(more?.[1] as string),
    });
    expect(rows(second.body)).toEqual(names.slice(50, 100));
    expect(charts(second.body)).toEqual(names.slice(50, 62));
    const draw = new RegExp(`href="([^"]+)" data-draw-key="${names[77]}"`).exec(second.body);
    const drawn = await server.app.inject({ method: 'GET', url: htmlDecoded(draw?.[1] as string) });
    expect(drawn.statusCode).toBe(200);
    expect(charts(drawn.body)).toEqual([names[77]]);
    const third = await server.app.inject({
      method: 'GET',
      url: htmlDecoded(
        /href="([^"]+)"[^>]*>More keys</.exec(
          second.body.replace(/rel="next" /g, ''),
        )?.[1] as string,
      ),
    });
    expect(rows(third.body)).toEqual(names.slice(100));
    expect(third.body).not.toContain('More keys');
  });

  it('answers a 400 page for 13 charts or a key cursor that is not its own', async () => {
    const token = await share();
    const thirteen = Array.from({ length: 13 }, (_, i) => `chart=k${i}`).join('&');
    for (const url of [`/share/${token}?${thirteen}`, `/share/${token}?keys=%21%21`]) {
      const res = await server.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });
});

describe.runIf(onPostgres)('PostgreSQL: statement_timeout on the statistics reads', () => {
  it('answers a read held past READ_TIMEOUT_MS with a 503 JSON error and Retry-After, and serves again', async () => {
    const slow = await startTestServer({ READ_TIMEOUT_MS: '300' });
    try {
      const account = await slow.account();
      await storeMetric(slow, account.projectId, Date.now() - 1000, { duration_ms: 1 });
      // A lock held by another session stands for a read that takes long: PostgreSQL counts the
      // wait against statement_timeout as it counts a scan.
      const holder = connect(slow.database.location);
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      // The read starts once the lock is held, not after a guessed delay: at CI's load, 100 ms
      // was not enough for the holder to connect and lock, and the read was answered 200.
      let acquired: () => void = () => {};
      const lockHeld = new Promise<void>((resolve) => (acquired = resolve));
      const locked = holder.begin(async (tx) => {
        await tx`LOCK TABLE series IN ACCESS EXCLUSIVE MODE`;
        acquired();
        await held;
      });
      await Promise.race([lockHeld, locked]);
      const started = Date.now();
      const res = await slow.call(
        'GET',
        query(Paths.getMetricKeys, { projectId: account.projectId }),
        { key: account.apiKey },
      );
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ error: OwnError.readTimeout });
      expect(res.headers['retry-after']).toBe('5');
      expect(Date.now() - started).toBeLessThan(5000);
      release();
      await locked;
      await holder.end();
      const again = await slow.call(
        'GET',
        query(Paths.getMetricKeys, { projectId: account.projectId }),
        { key: account.apiKey },
      );
      expect(again.statusCode).toBe(200);
      expect((again.json() as MetricKeys).keys.map((k) => k.key)).toEqual(['duration_ms']);
    } finally {
      await slow.close();
    }
  });
});
