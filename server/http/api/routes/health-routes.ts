import type { FastifyInstance } from 'fastify';
import { Paths } from '../../../../contract/paths.js';

/** Liveness with a database round trip, for load balancers and orchestrators. No key needed. */
export async function healthRoutes(app: FastifyInstance) {
  const { health } = app.services;

  app.get(Paths.health, async (request, reply) => {
    try {
      await health.check();
      return { status: 'ok' };
    } catch (error) {
      request.server.logger.error({ reqId: request.id, err: error }, 'health check failed');
      return reply.code(503).send({ error: 'Database unavailable.' });
    }
  });
}
