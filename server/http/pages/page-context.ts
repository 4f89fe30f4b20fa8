import type { FastifyError, FastifyInstance } from 'fastify';
import { ReadTimeout, StorageFull, StorageUnavailable } from '../../domain/domain-errors.js';
import { RETRY_AFTER_S } from '../api/domain-error-mapping.js';
import { ProjectBusy } from '../heavy-reads/project-gate.js';
import { dashboardContext } from './dashboard/dashboard-context.js';
import { FormRefused } from './dashboard/form-guard.js';
import { docsRoutes } from './docs/docs-routes.js';
import { renderDocument } from './html-document.js';
import { LandingView } from './landing-view.js';
import type { PageKit } from './page-kit.js';
import { shareRoutes } from './project-stats/share-routes.js';
import { publicPageRoutes } from './public-page/public-page-routes.js';
import { RefusedText, refuseNulInAddress } from './refused-text.js';
import { STATIC_PAGE_POLICY, securityHeaders } from './security-headers.js';

/**
 * The HTML pages, in a context of their own beside the JSON API: errors as clear HTML pages, the
 * assets they link to, the public pages (no script, no forms) and the dashboard (forms, sessions,
 * CSRF) each with its own security policy.
 */
export async function pageContext(app: FastifyInstance, { kit }: { kit: PageKit }) {
  app.addHook('onRequest', refuseNulInAddress);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const page = (status: number, html: string) =>
      reply
        .code(status)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(html);
    if (error instanceof FormRefused && error.reason === 'cross-site') {
      return page(403, kit.crossSiteFormHtml);
    }
    // A NUL in an address or a form (contract/text-rule.ts): the page names what held it.
    if (error instanceof RefusedText) return page(400, kit.refusedTextHtml(error.field));
    // The database away for a moment, its disk full, or a read cut short by its time limit, is a
    // 503 page, as it is in the API.
    if (
      error instanceof StorageUnavailable ||
      error instanceof StorageFull ||
      error instanceof ReadTimeout
    ) {
      reply.header('retry-after', String(RETRY_AFTER_S[error.kind]));
      return page(
        503,
        error instanceof StorageFull
          ? kit.storageFullHtml
          : error instanceof ReadTimeout
            ? kit.slowReadHtml
            : kit.errorHtml(503, request.id),
      );
    }
    // One project's heavy reads all running and its queue full (heavy-reads/project-gate.ts).
    if (error instanceof ProjectBusy) {
      reply.header('retry-after', String(error.retryAfterS));
      return page(429, kit.busyHtml);
    }
    const status =
      error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500)
      request.server.logger.error({ reqId: request.id, err: error }, 'page failed');
    return page(status, kit.errorHtml(status, request.id));
  });

  await app.register(async (publicPages) => {
    publicPages.addHook('onRequest', securityHeaders(STATIC_PAGE_POLICY));
    kit.assets.routes(publicPages);
    await publicPages.register(publicPageRoutes(kit));
    await publicPages.register(docsRoutes(kit));
    const landing = renderDocument(
      LandingView({ chrome: { stylesheet: kit.dashboardStylesheet, favicon: kit.favicon } }),
      kit.basePath,
    );
    publicPages.get('/', async (_request, reply) =>
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(landing),
    );
  });
  await app.register(dashboardContext(kit), { prefix: '/dashboard' });
  await app.register(shareRoutes(kit));
}
