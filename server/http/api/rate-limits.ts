import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { OwnError } from '../../../contract/error-texts.js';
import { Areas } from '../../../contract/paths.js';
import { budgetOf } from './budgets.js';
import { capKeyConcurrency } from './key-concurrency.js';
import { TokenBucketStore } from './token-bucket-store.js';

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
 * Per-key rate limits on the JSON API (@fastify/rate-limit, with a token bucket per key and budget,
 * counted in this process's memory): a key may send its budget's burst at once, then requests at
 * its per-minute rate, spread evenly, so that a flooding key never has a minute's allowance of
 * heavy reads at once. The limit is checked after authentication and before the body is read, so a
 * refused request costs neither a body nor a database query. Keys are counted by key id, never by
 * the key itself; requests without a key (the public routes) by client address; the admin API is
 * not limited. A 429 is answered after a pause (above) and carries `Retry-After`; every answer
 * under a limit carries the IETF draft's `RateLimit-Limit` (the burst), `RateLimit-Remaining` and
 * `RateLimit-Reset` (seconds until the bucket is full again).
 */
export async function rateLimits(app: FastifyInstance): Promise<void> {
  const { ingestPerMinute, otherPerMinute, ingestBurst, otherBurst } = app.config.rateLimits;
  const isIngest = (key: string) => key.startsWith('ingest:');
  const perMinuteOf = (key: string) => (isIngest(key) ? ingestPerMinute : otherPerMinute);
  const burstOf = (key: string) => (isIngest(key) ? ingestBurst : otherBurst);
  await app.register(rateLimit, {
    store: TokenBucketStore,
    // The time the bucket takes to fill: its burst at the per-minute rate.
    timeWindow: (_request, key) => (burstOf(key) * 60_000) / perMinuteOf(key),
    max: (_request, key) => burstOf(key),
    enableDraftSpec: true,
    keyGenerator: (request) => {
      const who = request.account === undefined ? `ip:${request.ip}` : request.account.keyId;
      return `${budgetOf(request)}:${who}`;
    },
    // A limit of 0 turns its budget off. The admin API is the operator's, and not limited.
    allowList: (request, key) =>
      perMinuteOf(key) === 0 || (request.routeOptions.url ?? '').startsWith(`${Areas.admin}/`),
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(OwnError.rateLimited), { statusCode: context.statusCode }),
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
