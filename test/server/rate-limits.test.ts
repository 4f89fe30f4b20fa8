import { afterEach, beforeEach, expect, it } from 'vitest';
import { OwnError } from '../../contract/error-texts.js';
import { loadConfig } from '../../server/config.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Per-key rate limits (defect 7): one budget for E7/E8, another for every other API request. */

let server: TestServer;
let me: TestAccount;
let other: TestAccount;

beforeEach(async () => {
  server = await startTestServer({
    RATE_LIMIT_INGEST_PER_MINUTE: '5',
    RATE_LIMIT_OTHER_PER_MINUTE: '4',
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
  const retryAfter = Number(refused.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
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
  expect(loadConfig({}).rateLimits).toEqual({ ingestPerMinute: 6000, otherPerMinute: 1200 });
});
