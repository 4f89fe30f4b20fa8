import { describe, expect, it } from 'vitest';
import { OwnError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { ProjectBusy, ProjectGate } from '../../server/http/heavy-reads/project-gate.js';
import { storeEvent, storeMetric } from '../helpers/seed-records.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Floods of share pages and badges (issue 22, part 1): rate limits per share token and per client
 * address, answers cached for a few seconds with an ETag and concurrent identical requests
 * computed once, and a per-project cap with a small queue on every heavy read.
 */

const NO_LIMITS = {
  SHARE_RATE_PER_MINUTE: '0',
  SHARE_RATE_PER_ADDRESS_PER_MINUTE: '0',
};

async function withServer(
  env: Record<string, string>,
  test: (server: TestServer, me: TestAccount) => Promise<void>,
) {
  const server = await startTestServer(env);
  try {
    await test(server, await server.account());
  } finally {
    await server.close();
  }
}

const shareToken = async (server: TestServer, me: TestAccount) =>
  (
    (
      await server.call('POST', Paths.createShareLink, {
        key: me.apiKey,
        body: { projectId: me.projectId },
      })
    ).json() as { token: string }
  ).token;

const fetchFrom = (server: TestServer, url: string, address = '127.0.0.1', headers = {}) =>
  server.app.inject({ method: 'GET', url, remoteAddress: address, headers });

describe('rate limits of share pages and badges', () => {
  it('per client address: past its burst a 429 page with Retry-After; another address passes', async () => {
    await withServer(
      {
        SHARE_RATE_PER_MINUTE: '0',
        SHARE_RATE_PER_ADDRESS_PER_MINUTE: '1',
        SHARE_ADDRESS_BURST: '3',
      },
      async (server, me) => {
        const token = await shareToken(server, me);
        const urls = [`/share/${token}`, `/share/${token}/badge/status.svg`];
        for (let i = 0; i < 3; i++) {
          expect((await fetchFrom(server, urls[i % 2] as string, '10.0.0.1')).statusCode).toBe(200);
        }
        for (const url of urls) {
          const refused = await fetchFrom(server, url, '10.0.0.1');
          expect(refused.statusCode).toBe(429);
          // 1 a minute: the next token in up to a minute.
          expect(Number(refused.headers['retry-after'])).toBeGreaterThan(1);
          expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
          expect(refused.headers['content-type']).toMatch(/^text\/html/);
          expect(refused.body).toContain('Too many requests');
        }
        expect((await fetchFrom(server, urls[0] as string, '10.0.0.2')).statusCode).toBe(200);
      },
    );
  });

  it('per share token: past its burst a 429 from any address; another token of the project passes', async () => {
    await withServer(
      { SHARE_RATE_PER_ADDRESS_PER_MINUTE: '0', SHARE_RATE_PER_MINUTE: '1', SHARE_BURST: '3' },
      async (server, me) => {
        const token = await shareToken(server, me);
        for (let i = 0; i < 3; i++) {
          const res = await fetchFrom(server, `/share/${token}/badge/status.svg`, `10.0.1.${i}`);
          expect(res.statusCode).toBe(200);
        }
        const refused = await fetchFrom(server, `/share/${token}`, '10.0.1.9');
        expect(refused.statusCode).toBe(429);
        expect(refused.headers['retry-after']).toBeDefined();
        const other = await shareToken(server, me);
        expect((await fetchFrom(server, `/share/${other}`, '10.0.1.9')).statusCode).toBe(200);
      },
    );
  });
});

describe('the cache of share pages and badges', () => {
  it('serves an answer for SHARE_CACHE_TTL_MS with its ETag (304 to If-None-Match), then the new one', async () => {
    await withServer({ ...NO_LIMITS, SHARE_CACHE_TTL_MS: '1500' }, async (server, me) => {
      const token = await shareToken(server, me);
      const url = `/share/${token}/badge/metric/duration_ms.svg`;
      await storeMetric(server, me.projectId, Date.now() - 1000, { duration_ms: 111 });
      const first = await fetchFrom(server, url);
      expect(first.statusCode).toBe(200);
      expect(first.body).toMatch(/>111 ms</);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      const again = await fetchFrom(server, url, '127.0.0.1', { 'if-none-match': etag });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      await storeMetric(server, me.projectId, Date.now(), { duration_ms: 222 });
      const cached = await fetchFrom(server, url);
      expect(cached.body).toMatch(/>111 ms</);
      expect(cached.headers.etag).toBe(etag);
      await new Promise((resolve) => setTimeout(resolve, 1600));
      const fresh = await fetchFrom(server, url);
      expect(fresh.body).toMatch(/>222 ms</);
      expect(fresh.headers.etag).not.toBe(etag);
      expect(
        (await fetchFrom(server, url, '127.0.0.1', { 'if-none-match': etag })).statusCode,
      ).toBe(200);
      // The page too; a revoked token is a 404 at once, cached answer or not.
      const page = await fetchFrom(server, `/share/${token}`);
      expect(page.statusCode).toBe(200);
      expect(page.headers['cache-control']).toBe('private, no-cache');
      const revalidated = await fetchFrom(server, `/share/${token}`, '127.0.0.1', {
        'if-none-match': page.headers.etag as string,
      });
      expect(revalidated.statusCode).toBe(304);
      await server.call('POST', Paths.revokeShareLink, { key: me.apiKey, body: { token } });
      expect((await fetchFrom(server, `/share/${token}`)).statusCode).toBe(404);
      expect((await fetchFrom(server, url)).statusCode).toBe(404);
    });
  });

  it('computes concurrent identical requests once: 20 at once pass a cap of 1 with no queue', async () => {
    await withServer(
      { ...NO_LIMITS, HEAVY_READS_PER_PROJECT: '1', HEAVY_READS_QUEUE: '0' },
      async (server, me) => {
        await storeEvent(server, me.projectId, Date.now() - 1000, 'build', { status: 'success' });
        const token = await shareToken(server, me);
        for (const url of [`/share/${token}`, `/share/${token}/badge/status.svg`]) {
          const answers = await Promise.all(
            Array.from({ length: 20 }, () => fetchFrom(server, url)),
          );
          expect(answers.map((res) => res.statusCode)).toEqual(Array(20).fill(200));
          expect(answers[0]?.headers.etag).toMatch(/^"/);
          expect(new Set(answers.map((res) => res.headers.etag)).size).toBe(1);
        }
      },
    );
  });
});

describe('the per-project cap of heavy reads', () => {
  it('runs at most `limit` at once, queues `queue` in arrival order, refuses the rest at once', async () => {
    const gate = new ProjectGate(2, 1);
    const started: number[] = [];
    const finish: (() => void)[] = [];
    const read = (n: number) =>
      gate.run('p', async () => {
        started.push(n);
        await new Promise<void>((resolve) => finish.push(resolve));
        return n;
      });
    const reads = [read(1), read(2), read(3)];
    await expect(read(4)).rejects.toBeInstanceOf(ProjectBusy);
    // Another project is not held up.
    const other = gate.run('q', async () => 'q');
    await expect(other).resolves.toBe('q');
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([1, 2]);
    finish[0]?.();
    await reads[0];
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([1, 2, 3]);
    finish[1]?.();
    finish[2]?.();
    await expect(Promise.all(reads)).resolves.toEqual([1, 2, 3]);
    // Its slots are free again.
    const fifth = read(5);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([1, 2, 3, 5]);
    finish[3]?.();
    await expect(fifth).resolves.toBe(5);
  });

  it('answers heavy reads of one project past the cap and queue with 429 and Retry-After, pages and API alike', async () => {
    await withServer(
      {
        ...NO_LIMITS,
        HEAVY_READS_PER_PROJECT: '1',
        HEAVY_READS_QUEUE: '1',
        SHARE_CACHE_TTL_MS: '0',
        RATE_LIMIT_OTHER_CONCURRENCY: '0',
      },
      async (server, me) => {
        for (let i = 0; i < 40; i++) {
          await storeMetric(server, me.projectId, Date.now() - 100_000 + i, {
            [`k${i}`]: i,
            ci: { branch: `b${i % 8}` },
          });
        }
        const token = await shareToken(server, me);
        // Distinct pages (no two alike, so none is coalesced), all at once.
        const pages = await Promise.all(
          Array.from({ length: 12 }, (_, i) => fetchFrom(server, `/share/${token}?branch=b${i}`)),
        );
        const statuses = pages.map((res) => res.statusCode);
        expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
        expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
        for (const busy of pages.filter((res) => res.statusCode === 429)) {
          expect(busy.headers['retry-after']).toBe('1');
          expect(busy.body).toContain('Too many requests');
        }
        const series = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            server.call(
              'GET',
              `${Paths.getMetricSeries}?projectId=${me.projectId}&key=k${i}&buckets=1000`,
              { key: me.apiKey },
            ),
          ),
        );
        const refused = series.filter((res) => res.statusCode === 429);
        expect(series.every((res) => res.statusCode === 200 || res.statusCode === 429)).toBe(true);
        expect(refused.length).toBeGreaterThan(0);
        for (const res of refused) {
          expect(res.json()).toEqual({ error: OwnError.projectBusy });
          expect(res.headers['retry-after']).toBe('1');
        }
        // Once they are done, the project is served again.
        expect((await fetchFrom(server, `/share/${token}`)).statusCode).toBe(200);
      },
    );
  });
});
