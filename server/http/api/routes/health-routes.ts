import type { FastifyInstance } from 'fastify';
import { OwnError } from '../../../../contract/error-texts.js';
import { Paths } from '../../../../contract/paths.js';
import { StorageFull, StorageUnavailable } from '../../../domain/domain-errors.js';
import { RETRY_AFTER_S } from '../domain-error-mapping.js';
import { describeArea } from '../route-docs.js';

const DATABASE_UNAVAILABLE = 'Database unavailable.';

/**
 * Liveness with a database round trip, for load balancers and orchestrators. No key needed. 503
 * says why: the database cannot be reached, its disk is full (until there is room again), or a
 * flush of its log failed (until a restart: an orchestrator that restarts on 503 ends it). With
 * a read replica, 200 also says where reads go (a replica away or behind is no outage).
 */
export async function healthRoutes(app: FastifyInstance) {
  const { health } = app.services;

  describeArea(app, { tag: 'Health', auth: 'none', rateLimited: false });
  app.get(
    Paths.health,
    {
      schema: { summary: 'Liveness, with a database round trip (no key needed)' },
      config: {
        docs: {
          // `replica` only with DATABASE_REPLICA_URL (docs/operations.md, Read replica).
          success: {
            example: {
              status: 'ok',
              replica: { reads: 'replica', state: 'ok', lagSeconds: 0.2 },
            },
          },
          answers: { 503: [DATABASE_UNAVAILABLE, OwnError.storageFull, OwnError.flushFailed] },
        },
      },
    },
    async (request, reply) => {
      try {
        return { status: 'ok', ...(await health.check()) };
      } catch (error) {
        if (error instanceof StorageFull) {
          return reply
            .code(503)
            .header('retry-after', String(RETRY_AFTER_S['storage-full']))
            .send({ error: OwnError.storageFull });
        }
        // Logged once when it happened; a restart is what ends it (no Retry-After).
        if (error instanceof StorageUnavailable && error.reason === 'flush-failed') {
          return reply.code(503).send({ error: OwnError.flushFailed });
        }
        request.server.logger.error({ reqId: request.id, err: error }, 'health check failed');
        return reply.code(503).send({ error: DATABASE_UNAVAILABLE });
      }
    },
  );
}
