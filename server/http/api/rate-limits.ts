import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
} from 'fastify';
import { OwnError } from '../../../contract/error-texts.js';
import { Areas } from '../../../contract/paths.js';
import { type Budget, budgetOfRoute } from './budgets.js';
import { capKeyConcurrency } from './key-concurrency.js';
import { withHook } from './route-hooks.js';
import { TokenBuckets } from './token-bucket-store.js';

/**
 * A 429 is sent after a pause of one second on average: a client that loops on refusals (a
 * runaway script waits for each answer) then sends one request a second per connection instead of
 * thousands, and the server's time goes to the other keys. Each pause is drawn between half and
 * one and a half of it, so that a flood's connections, refused together, do not all come back in
 * the same instant for the tokens of the second gone by. Retry-After is computed before the pause,
 * so a client that waits it out retries after its next request is due, never before.
 */
const REFUSAL_PAUSE_MS = 1000;
/** Beyond this many 429s waiting at once (many connections), the rest are sent at once. */
const MAX_PAUSED_REFUSALS = 1000;

/**
 * Per-key rate limits on the JSON API: a token bucket per key and budget (`token-bucket-store.ts`),
 * counted in this process's memory. A key may send its budget's burst at once, then requests at
 * its per-minute rate, spread evenly, so that a flooding key never has a minute's allowance of
 * heavy reads at once. The limit is checked after authentication and before the body is read, so
 * a refused request costs neither a body nor a database query. Keys are counted by key id, never
 * by the key itself; requests without a key (the public routes) by client address; the admin API
 * is not limited. A 429 is answered after a pause (above) and carries `Retry-After`; every answer
 * under a limit carries the IETF draft's `RateLimit-Limit` (the burst), `RateLimit-Remaining` and
 * `RateLimit-Reset` (seconds until the bucket is full again).
 *
 * Our own synchronous hook, where @fastify/rate-limit was: the plugin awaits its key, allow-list,
 * limit and window functions and its store's callback on every request, five turns of the
 * microtask queue and their promises for what is a few arithmetic steps (issue 31 measured it
 * among the causes of ingest's lost quarter); its headers, texts and order are kept as they were.
 */
export async function rateLimits(app: FastifyInstance): Promise<void> {
  const { ingestPerMinute, otherPerMinute, ingestBurst, otherBurst } = app.config.rateLimits;
  const budgets: Record<Budget, { burst: number; window: number } | undefined> = {
    // A limit of 0 turns its budget off. The window is the time the bucket takes to fill: its
    // burst at the per-minute rate.
    ingest:
      ingestPerMinute === 0
        ? undefined
        : { burst: ingestBurst, window: (ingestBurst * 60_000) / ingestPerMinute },
    other:
      otherPerMinute === 0
        ? undefined
        : { burst: otherBurst, window: (otherBurst * 60_000) / otherPerMinute },
  };

  /** The hook of the routes whose requests spend a budget of `limits`, with its buckets. */
  const limitOf = (limits: { burst: number; window: number }) => {
    // A budget's buckets of its own: a key's id, kept by the credentials' cache, is then the
    // bucket's key as it is (a string built per request is hashed per request).
    const buckets = new TokenBuckets();
    return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const who = request.account === undefined ? `ip:${request.ip}` : request.account.keyId;
      const { current, ttl } = buckets.take(who, limits.window, limits.burst);
      const reset = Math.ceil(ttl / 1000);
      reply.header('ratelimit-limit', limits.burst);
      if (current <= limits.burst) {
        reply.header('ratelimit-remaining', limits.burst - current);
        reply.header('ratelimit-reset', reset);
        done();
        return;
      }
      reply.header('ratelimit-remaining', 0);
      reply.header('ratelimit-reset', reset);
      reply.header('retry-after', reset);
      done(Object.assign(new Error(OwnError.rateLimited), { statusCode: 429 }));
    };
  };

  // One hook per budget, shared by its routes (and so are its buckets).
  const hooks = {
    ingest: budgets.ingest && limitOf(budgets.ingest),
    other: budgets.other && limitOf(budgets.other),
  };

  // Every route registered from here on, but the operator's admin API and a budget turned off,
  // after the hooks of its context and authentication (the route's first hook), as a
  // route-level onRequest hook.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(`${app.config.basePath}${Areas.admin}/`)) return;
    const limit = hooks[budgetOfRoute(route)];
    if (limit === undefined) return;
    route.onRequest = withHook(route.onRequest, limit, 'last');
  });
  capKeyConcurrency(app, app.config.rateLimits.otherConcurrency);
  pauseRefusals(app);
}

/**
 * Holds every 429 of `app`'s context for REFUSAL_PAUSE_MS on average before it is sent (above),
 * at most MAX_PAUSED_REFUSALS at once: the API's and the share pages' alike.
 */
export function pauseRefusals(app: FastifyInstance): void {
  let paused = 0;
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode !== 429 || paused >= MAX_PAUSED_REFUSALS) {
      done(null, payload);
      return;
    }
    paused += 1;
    setTimeout(
      () => {
        paused -= 1;
        done(null, payload);
      },
      REFUSAL_PAUSE_MS * (0.5 + Math.random()),
    ).unref();
  });
}
