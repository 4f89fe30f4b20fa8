import type { FastifyInstance } from 'fastify';

/** Liveness with a database round-trip, for load balancers and orchestrators. */
export default async function healthRoutes(app: FastifyInstance) {
  const ping = app.db.prepare('SELECT 1').pluck();

  app.get('/healthz', async (request, reply) => {
    try {
      ping.get();
      return { status: 'ok' };
    } catch (error) {
      request.log.error({ err: error }, 'health check failed');
      return reply.code(503).send({ error: 'Database unavailable.' });
    }
  });
}
