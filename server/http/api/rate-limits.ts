import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OwnError } from '../../../contract/error-texts.js';
import { Areas } from '../../../contract/paths.js';

/** The two budgets: E7/E8 (what CI sends) and every other API request (reads, settings). */
type Budget = 'ingest' | 'other';

const INGEST_PATHS = ['/ingest-events', '/ingest-metrics'];

/**
 * A 429 is sent after this pause: a client that loops on refusals (a runaway script waits for
 * each answer) then sends one request a second per connection instead of thousands, and the
 * server's time goes to the other keys. Retry-After is computed before the pause, so a client
 * that waits it out retries a second after the window has ended, never before.
 */
const REFUSAL_PAUSE_MS = 1000;
/** Beyond this many 429s waiting at once (many connections), the rest are sent at once. */
const MAX_PAUSED_REFUSALS = 1000;

/** E7 and E8 (under whichever prefix) spend the ingest budget; everything else the other. */
function budgetOf(request: FastifyRequest): Budget {
  const path = request.routeOptions.url ?? '';
  return request.method === 'POST' && INGEST_PATHS.some((end) => path.endsWith(end))
    ? 'ingest'
    : 'other';
}

/**
 * Per-key rate limits on the JSON API (@fastify/rate-limit, a fixed window of one minute, counted
 * in this process's memory). The limit is checked after authentication and before the body is
 * read, so a refused request costs neither a body nor a database query. Keys are counted by key id,
 * never by the key itself; requests without a key (the public routes) by client address; the admin
 * API is not limited. A 429 is answered after a pause (below). A 429 carries `Retry-After` and the IETF draft's `RateLimit-Limit`,
 * `RateLimit-Remaining` and `RateLimit-Reset` headers, which every answer under a limit carries.
 */
export async function rateLimits(app: FastifyInstance): Promise<void> {
  const { ingestPerMinute, otherPerMinute } = app.config.rateLimits;
  const limitOf = (key: string) => (key.startsWith('ingest:') ? ingestPerMinute : otherPerMinute);
  await app.register(rateLimit, {
    timeWindow: 60_000,
    enableDraftSpec: true,
    // Enough entries for every key of a large installation; the least recent go first.
    cache: 100_000,
    keyGenerator: (request) => {
      const who = request.account === undefined ? `ip:${request.ip}` : request.account.keyId;
      return `${budgetOf(request)}:${who}`;
    },
    max: (_request, key) => limitOf(key),
    // A limit of 0 turns its budget off. The admin API is the operator's, and not limited.
    allowList: (request, key) =>
      limitOf(key) === 0 || (request.routeOptions.url ?? '').startsWith(`${Areas.admin}/`),
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(OwnError.rateLimited), { statusCode: context.statusCode }),
  });
  let paused = 0;
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode !== 429 || paused >= MAX_PAUSED_REFUSALS) {
      done(null, payload);
      return;
    }
    paused += 1;
    setTimeout(() => {
      paused -= 1;
      done(null, payload);
    }, REFUSAL_PAUSE_MS).unref();
  });
}
