import type { FastifyInstance } from 'fastify';
import { Paths } from '../../../../contract/paths.js';
import { describeArea } from '../route-docs.js';

const DATABASE_UNAVAILABLE = 'Database unavailable.';

/** Liveness with a database round trip, for load balancers and orchestrators. No key needed. */
export async function healthRoutes(app: FastifyInstance) {
  const { health } = app.services;

  describeArea(app, { tag: 'Health', auth: 'none', rateLimited: false });
  app.get(
    Paths.health,
    {
      schema: { summary: 'Liveness, with a database round trip (no key needed)' },
      config: {
        docs: { success: { example: { status: 'ok' } }, answers: { 503: [DATABASE_UNAVAILABLE] } },
      },
    },
    async (request, reply) => {
      try {
        await health.check();
        return { status: 'ok' };
      } catch (error) {
        request.server.logger.error({ reqId: request.id, err: error }, 'health check failed');
        return reply.code(503).send({ error: DATABASE_UNAVAILABLE });
      }
    },
  );
}
