import type { FastifyInstance, preParsingHookHandler } from 'fastify';
import { budgetOfRoute } from './budgets.js';
import { withHook } from './route-hooks.js';

interface Slots {
  running: number;
  waiting: (() => void)[];
}

/**
 * At most `limit` requests of one key's `other` budget (reads, settings) in progress at once; the
 * key's further requests wait their turn, in arrival order, before their body is read. A key's
 * allowance of heavy reads then runs one after another, with every other key's requests served in
 * between (the next one starts on a later turn of the event loop), instead of all at once ahead of
 * them. Only requests the rate limit has admitted wait here, so a key's queue is never longer than
 * its bucket. Ingest (E7/E8) is not capped: its requests are cheap and wait on a shared commit.
 */
export function capKeyConcurrency(app: FastifyInstance, limit: number): void {
  if (limit === 0) return;
  const byKey = new Map<string, Slots>();
  const wait: preParsingHookHandler = (request, reply, payload, done) => {
    if (request.account === undefined) {
      done(null, payload);
      return;
    }
    const key = request.account.keyId;
    const slots = byKey.get(key) ?? { running: 0, waiting: [] };
    byKey.set(key, slots);
    const release = () => {
      slots.running -= 1;
      const next = slots.waiting.shift();
      if (next) setImmediate(next);
      else if (slots.running === 0) byKey.delete(key);
    };
    const start = () => {
      slots.running += 1;
      // 'close' comes once the answer is sent or the connection is gone, whichever happens.
      if (reply.raw.closed) setImmediate(release);
      else reply.raw.once('close', release);
      done(null, payload);
    };
    if (slots.running < limit) start();
    else slots.waiting.push(start);
  };
  // Only on the routes of the `other` budget (ingest requests run no hook for it), before the
  // route's own preParsing hooks, as a hook of the context would run.
  app.addHook('onRoute', (route) => {
    if (budgetOfRoute(route) !== 'other') return;
    route.preParsing = withHook(route.preParsing, wait, 'first');
  });
}
