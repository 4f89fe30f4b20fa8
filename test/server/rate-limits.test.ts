import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OwnError } from '../../contract/error-texts.js';
import { loadConfig } from '../../server/config.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Per-key rate limits (defect 7): one budget for E7/E8, another for every other API request. */

let server: TestServer;
let me: TestAccount;
let other: TestAccount;

beforeEach(async () => {
  server = await startTestServer({
    // Buckets of 5 and 4 requests, refilled at the same numbers per minute: one token every 12 and
    // 15 s, so none comes back during a test.
    RATE_LIMIT_INGEST_PER_MINUTE: '5',
    RATE_LIMIT_INGEST_BURST: '5',
    RATE_LIMIT_OTHER_PER_MINUTE: '4',
    RATE_LIMIT_OTHER_BURST: '4',
  });
  me = await server.account();
  other = await server.account();
});
afterEach(() => server.close());

const event = (account: TestAccount) =>
  server.call('POST', '/stats/ingest-events', {
    key: account.apiKey,
    body: { projectId: account.projectId, eventType: 'build' },
  });
const metric = (account: TestAccount) =>
  server.call('POST', '/stats/ingest-metrics', {
    key: account.apiKey,
    body: { projectId: account.projectId, payload: { n: 1 } },
  });
const projects = (account: TestAccount) =>
  server.call('GET', '/stats/get-projects', { key: account.apiKey });

it('a key over its ingest budget gets 429 with Retry-After, and stores nothing more', async () => {
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await event(me)).statusCode);
  for (let i = 0; i < 2; i++) statuses.push((await metric(me)).statusCode);
  expect(statuses).toEqual([200, 200, 200, 200, 200]);

  const refused = await event(me);
  expect({ status: refused.statusCode, body: refused.json() }).toEqual({
    status: 429,
    body: { error: OwnError.rateLimited },
  });
  // The next token is due 12 s after the first request (a fifth of a minute).
  const retryAfter = Number(refused.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(11);
  expect(retryAfter).toBeLessThanOrEqual(12);
  expect(refused.headers['ratelimit-limit']).toBe('5');
  expect(refused.headers['ratelimit-remaining']).toBe('0');
  expect(Number(refused.headers['ratelimit-reset'])).toBe(retryAfter);
  expect((await metric(me)).statusCode).toBe(429);

  // Another key is not affected, and the same key's reads have their own budget.
  expect((await event(other)).statusCode).toBe(200);
  const read = await server.call('GET', `/stats/get-events?projectId=${me.projectId}`, {
    key: me.apiKey,
  });
  expect(read.statusCode).toBe(200);
  expect(read.json().events).toHaveLength(3);
  expect(read.headers['ratelimit-limit']).toBe('4');
  expect(read.headers['ratelimit-remaining']).toBe('3');
});

it('a key over its read budget gets 429; ingest and other keys go on', async () => {
  const statuses = [];
  for (let i = 0; i < 5; i++) statuses.push((await projects(me)).statusCode);
  expect(statuses).toEqual([200, 200, 200, 200, 429]);
  const site = await server.call('POST', '/pagesite/toggle-site-visibility', { key: me.apiKey });
  expect({ status: site.statusCode, body: site.json() }).toEqual({
    status: 429,
    body: { error: OwnError.rateLimited },
  });
  expect((await projects(other)).statusCode).toBe(200);
  expect((await event(me)).statusCode).toBe(200);
  // The refused toggle changed nothing.
  const config = await server.call('GET', '/pagesite/get-site-configuration', {
    key: other.apiKey,
  });
  expect(config.statusCode).toBe(200);
  // The admin API (four calls so far, for the two accounts) is the operator's: not limited.
  const third = await server.account();
  expect((await projects(third)).statusCode).toBe(200);
});

it('0 turns a budget off; the defaults are there without configuration', async () => {
  const open = await startTestServer({ RATE_LIMIT_INGEST_PER_MINUTE: '0' });
  try {
    const account = await open.account();
    for (let i = 0; i < 30; i++) {
      const res = await open.call('POST', '/stats/ingest-metrics', {
        key: account.apiKey,
        body: { projectId: account.projectId, payload: { i } },
      });
      expect(res.statusCode).toBe(200);
    }
  } finally {
    await open.close();
  }
  expect(loadConfig({}).rateLimits).toEqual({
    ingestPerMinute: 6000,
    otherPerMinute: 1200,
    ingestBurst: 1000,
    otherBurst: 60,
    otherConcurrency: 2,
    badKeysPerMinute: 600,
  });
});

it('a key gets its burst at once, then its rate spread out: not a whole window at its start', async () => {
  // 600 a minute is a token every 100 ms, in a bucket of 3.
  const smooth = await startTestServer({
    RATE_LIMIT_OTHER_PER_MINUTE: '600',
    RATE_LIMIT_OTHER_BURST: '3',
  });
  try {
    const account = await smooth.account();
    const read = () => smooth.call('GET', '/stats/get-projects', { key: account.apiKey });
    const burst = [];
    for (let i = 0; i < 4; i++) burst.push(await read());
    // A fixed window of a minute would let 600 through here; the bucket lets 3.
    expect(burst.map((res) => res.statusCode)).toEqual([200, 200, 200, 429]);
    expect(burst.map((res) => res.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    expect(burst.map((res) => res.headers['ratelimit-limit'])).toEqual(['3', '3', '3', '3']);
    // The bucket is full again 300 ms after the burst; the next token is due within 100 ms.
    expect(burst[0]?.headers['ratelimit-reset']).toBe('1');
    expect(burst[3]?.headers['retry-after']).toBe('1');
    // The 429 came after its one-second pause: the bucket has refilled (a fixed window would still
    // refuse for a minute), to its 3 and no more.
    const again = [];
    for (let i = 0; i < 4; i++) again.push((await read()).statusCode);
    expect(again).toEqual([200, 200, 200, 429]);
  } finally {
    await smooth.close();
  }
});

describe('wrong keys are counted per client address', () => {
  const wrongKey = (target: TestServer, key: string | undefined, forwardedFor?: string) =>
    target.call('GET', '/stats/get-projects', {
      ...(key === undefined ? {} : { key }),
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    });

  it('past the limit, 429 with Retry-After instead of 401; a good key from there still passes', async () => {
    const guarded = await startTestServer({ RATE_LIMIT_BAD_KEYS_PER_MINUTE: '3' });
    try {
      const account = await guarded.account();
      const first = [
        await wrongKey(guarded, 'cis_wrong-1'),
        await wrongKey(guarded, undefined),
        await wrongKey(guarded, 'cis_wrong-3'),
      ];
      expect(first.map((res) => res.statusCode)).toEqual([401, 401, 401]);
      // Without TRUST_PROXY, a forwarded address is not believed: the same client, over its count.
      const refused = await wrongKey(guarded, 'cis_wrong-4', '203.0.113.9');
      expect({ status: refused.statusCode, body: refused.json() }).toEqual({
        status: 429,
        body: { error: OwnError.rateLimited },
      });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect((await wrongKey(guarded, account.apiKey)).statusCode).toBe(200);
      // A wrong key on a write is refused the same way, and changes nothing.
      const write = await guarded.call('POST', '/stats/ingest-events', {
        key: 'cis_wrong-5',
        body: { projectId: account.projectId, eventType: 'build' },
      });
      expect(write.statusCode).toBe(429);
      const events = await guarded.call('GET', `/stats/get-events?projectId=${account.projectId}`, {
        key: account.apiKey,
      });
      expect(events.json().events).toEqual([]);
    } finally {
      await guarded.close();
    }
  });

  it('behind a trusted proxy, each forwarded address has its own count', async () => {
    // app.inject comes from 127.0.0.1: that is the proxy here.
    const proxied = await startTestServer({
      RATE_LIMIT_BAD_KEYS_PER_MINUTE: '2',
      TRUST_PROXY: '127.0.0.1',
    });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await wrongKey(proxied, 'x', '203.0.113.1')).statusCode);
      statuses.push((await wrongKey(proxied, 'x', '203.0.113.2')).statusCode);
      expect(statuses).toEqual([401, 401, 429, 401]);
    } finally {
      await proxied.close();
    }
  });

  it('0 turns the count off', async () => {
    const open = await startTestServer({ RATE_LIMIT_BAD_KEYS_PER_MINUTE: '0' });
    try {
      for (let i = 0; i < 20; i++) expect((await wrongKey(open, 'x')).statusCode).toBe(401);
    } finally {
      await open.close();
    }
  });
});
