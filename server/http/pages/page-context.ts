import type { FastifyError, FastifyInstance } from 'fastify';
import type { PageKit } from './page-kit.js';
import { publicPageRoutes } from './public-page/public-page-routes.js';
import { STATIC_PAGE_POLICY, securityHeaders } from './security-headers.js';

/**
 * The HTML pages, in a context of their own beside the JSON API: security headers (CSP) on every
 * answer, errors as clear HTML pages, and the assets they link to.
 */
export async function pageContext(app: FastifyInstance, { kit }: { kit: PageKit }) {
  app.addHook('onRequest', securityHeaders(STATIC_PAGE_POLICY));
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode < 500 ? 400 : 500;
    if (status === 500) request.log.error({ err: error }, 'page failed');
    return reply
      .code(status)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(kit.errorHtml(status, request.id));
  });

  kit.assets.routes(app);
  await app.register(publicPageRoutes(kit));
}
