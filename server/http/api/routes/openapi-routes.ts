import type { FastifyInstance } from 'fastify';
import { OPENAPI_PATH } from '../openapi.js';

/**
 * The OpenAPI document, public, generated once from the routes. The pages render it at
 * /docs/api/reference (server/http/pages/docs/).
 */
export async function openApiRoutes(app: FastifyInstance) {
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}
