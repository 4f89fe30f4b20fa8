import type { FastifyInstance, FastifyReply } from 'fastify';
import { NotFound } from '../../../domain/domain-errors.js';
import { renderDocument } from '../html-document.js';
import type { PageKit } from '../page-kit.js';
import { STATS_PAGE_POLICY, securityHeaders } from '../security-headers.js';
import { metricBadge, statusBadge } from './badges.js';
import { viewQueryOf } from './view-query.js';
import { SharedStatsView } from './views/project-stats-view.js';

/** How long a badge may be cached (by a browser or GitHub's image proxy). */
const BADGE_MAX_AGE = 'max-age=60';

const one = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * /share/<token>: a project's statistics page, read-only and without sign-in, and its badges.
 * An unknown or revoked token is the one 404 page (or a 404 badge request) at once: the token is
 * looked up on every request, nothing is cached.
 */
export function shareRoutes(kit: PageKit) {
  return async (app: FastifyInstance) => {
    const { projectView, stats } = app.services;
    app.addHook('onRequest', securityHeaders(STATS_PAGE_POLICY));
    const chrome = { stylesheet: kit.dashboardStylesheet, favicon: kit.favicon };

    const notFound = (reply: FastifyReply) =>
      reply
        .code(404)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(kit.notFoundHtml);

    /** Runs `answer`, turning an unknown or revoked token into the 404 page. */
    const orNotFound = async (reply: FastifyReply, answer: () => Promise<FastifyReply>) => {
      try {
        return await answer();
      } catch (error) {
        if (error instanceof NotFound) return notFound(reply);
        throw error;
      }
    };

    app.get<{ Params: { token: string } }>('/share/:token', async (request, reply) =>
      orNotFound(reply, async () => {
        const query = viewQueryOf(request.query);
        // The token first: a revoked link is a 404 whatever the query says.
        await projectView.shared(request.params.token);
        if (!query)
          return reply
            .code(400)
            .type('text/html; charset=utf-8')
            .send(kit.errorHtml(400, request.id));
        const view = await projectView.forShare(request.params.token, query);
        const html = renderDocument(
          SharedStatsView({
            view,
            mode: { kind: 'share', path: `/share/${encodeURIComponent(request.params.token)}` },
            chrome,
            assets: kit.statsAssets,
          }),
        );
        return reply
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .type('text/html; charset=utf-8')
          .send(html);
      }),
    );

    const svg = (reply: FastifyReply, body: string) =>
      reply.header('cache-control', BADGE_MAX_AGE).type('image/svg+xml; charset=utf-8').send(body);

    app.get<{ Params: { token: string } }>(
      '/share/:token/badge/status.svg',
      async (request, reply) =>
        orNotFound(reply, async () => {
          const { accountId, projectId } = await projectView.shared(request.params.token);
          const query = request.query as Record<string, unknown>;
          const status = await stats.latestStatus(accountId, projectId, {
            branch: one(query.branch),
            eventType: one(query.eventType),
          });
          return svg(reply, statusBadge(status));
        }),
    );

    app.get<{ Params: { token: string; key: string } }>(
      '/share/:token/badge/metric/:key',
      async (request, reply) =>
        orNotFound(reply, async () => {
          const { key: file, token } = request.params;
          if (!file.endsWith('.svg')) return notFound(reply);
          const key = file.slice(0, -'.svg'.length);
          const { accountId, projectId } = await projectView.shared(token);
          const found = await stats.key(accountId, projectId, key);
          return svg(reply, metricBadge(key, found?.last_value));
        }),
    );
  };
}
