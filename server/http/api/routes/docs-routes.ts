import type { FastifyInstance } from 'fastify';
import {
  API_DOCS_CSS,
  ApiDocsView,
  type OpenApiDocument,
} from '../../pages/api-docs/api-docs-view.js';
import { renderDocument } from '../../pages/html-document.js';
import { STATIC_PAGE_POLICY, securityHeadersOf } from '../../pages/security-headers.js';
import { OPENAPI_PATH } from '../openapi.js';

const DOCS_CSS_PATH = '/docs/style.css';

/**
 * The OpenAPI document, and a readable reference page rendered from it on the server (no script,
 * no CDN). Both are public and computed once, on first request.
 */
export async function docsRoutes(app: FastifyInstance) {
  const headers = securityHeadersOf(STATIC_PAGE_POLICY);
  let page: string | undefined;

  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());

  app.get('/docs/api/reference', { schema: { hide: true } }, async (_request, reply) => {
    page ??= renderDocument(
      ApiDocsView({
        document: app.swagger() as unknown as OpenApiDocument,
        stylesheet: DOCS_CSS_PATH,
      }),
    );
    return reply.headers(headers).type('text/html; charset=utf-8').send(page);
  });

  app.get(DOCS_CSS_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .headers(headers)
      .header('cache-control', 'public, max-age=3600')
      .type('text/css; charset=utf-8')
      .send(API_DOCS_CSS),
  );
}
