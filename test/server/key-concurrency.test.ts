import { request } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, expect, it } from 'vitest';
import { capKeyConcurrency } from '../../server/http/api/key-concurrency.js';
import type { KeyOwner } from '../../server/storage/storage.js';

/**
 * The per-key cap on requests in progress (defect 7's fairness): a real Fastify instance with the
 * cap, a hook standing in for the API key check, and a route that answers when the test says so.
 */

let app: FastifyInstance;
afterEach(() => app.close());

async function withSlowRoute(limit: number) {
  app = Fastify();
  const started: string[] = [];
  const pending: (() => void)[] = [];
  app.addHook('onRequest', async (request) => {
    request.account = { keyId: String(request.headers['x-key']) } as KeyOwner;
  });
  capKeyConcurrency(app, limit);
  app.get('/stats/get-events', async (request) => {
    started.push(String(request.query && (request.query as { n: string }).n));
    await new Promise<void>((resolve) => pending.push(resolve));
    return { ok: true };
  });
  app.post('/stats/ingest-events', async () => {
    started.push('ingest');
    await new Promise<void>((resolve) => pending.push(resolve));
    return { ok: true };
  });
  await app.ready();
  const get = (key: string, n: string) =>
    app.inject({ method: 'GET', url: `/stats/get-events?n=${n}`, headers: { 'x-key': key } });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
  return { started, pending, get, settle };
}

it("a key's requests beyond the cap wait their turn; other keys and ingest do not wait", async () => {
  const { started, pending, get, settle } = await withSlowRoute(1);
  const a1 = get('a', 'a1');
  const a2 = get('a', 'a2');
  const b1 = get('b', 'b1');
  const ingest = app.inject({
    method: 'POST',
    url: '/stats/ingest-events',
    headers: { 'x-key': 'a' },
  });
  await settle();
  // a2 waits for a1; b1 (another key) and the ingest request (not capped) run at once.
  expect(started.sort()).toEqual(['a1', 'b1', 'ingest']);
  for (const resolve of pending.splice(0)) resolve();
  expect((await a1).statusCode).toBe(200);
  await settle();
  expect(started).toContain('a2');
  for (const resolve of pending.splice(0)) resolve();
  expect((await a2).statusCode).toBe(200);
  expect((await b1).statusCode).toBe(200);
  expect((await ingest).statusCode).toBe(200);
});

it('a waiting request whose client left does not keep its slot', async () => {
  const { started, pending, get, settle } = await withSlowRoute(1);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const a1 = get('a', 'a1');
  await settle();
  // a2 waits behind a1 over a real connection, and its client goes away meanwhile.
  const gone = request(`${address}/stats/get-events?n=a2`, { headers: { 'x-key': 'a' } });
  gone.on('error', () => {});
  gone.end();
  await settle();
  gone.destroy();
  await settle();
  expect(started).toEqual(['a1']);
  for (const resolve of pending.splice(0)) resolve();
  await a1;
  await settle();
  // a2's turn comes and goes at once (nobody is there to answer): a3 is not kept waiting by it.
  const a3 = get('a', 'a3');
  await settle();
  expect(started).toContain('a3');
  for (const resolve of pending.splice(0)) resolve();
  expect((await a3).statusCode).toBe(200);
});
