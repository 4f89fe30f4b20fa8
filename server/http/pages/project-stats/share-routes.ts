import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fresh from 'fresh';
import { NotFound } from '../../../domain/domain-errors.js';
import { unitOf } from '../../../domain/unit-format.js';
import { pauseRefusals } from '../../api/rate-limits.js';
import { ResponseCache } from '../../heavy-reads/response-cache.js';
import { ShareLimits } from '../../heavy-reads/share-limits.js';
import { renderDocument } from '../html-document.js';
import type { PageKit } from '../page-kit.js';
import { STATS_PAGE_POLICY, securityHeaders } from '../security-headers.js';
import { shareTestsRoutes } from '../tests/share-tests-routes.js';
import { MAX_BADGE_LABEL, metricBadge, statusBadge } from './badges.js';
import { attachment, CSV_TYPE, csvRequestOf, exportTable } from './csv-export.js';
import { SHARE_PAGE_CACHE, type ShareAnswer, type ShareOwner, sharedPath } from './share-answer.js';
import { viewQueryOf } from './view-query.js';
import { SharedStatsView } from './views/project-stats-view.js';

/** How long a badge may be cached (by a browser or GitHub's image proxy). */
const BADGE_MAX_AGE = 'max-age=60';

const one = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * /share/<token>: a project's statistics page, read-only and without sign-in, and its badges.
 * The token is looked up on every request (a revoked link is a 404 at once). Each request first
 * passes the rate limits of its token and client address (429 with Retry-After); its answer is
 * then served from a cache of a few seconds (SHARE_CACHE_TTL_MS, keyed by project and address,
 * concurrent identical requests computed once), computed under the project's heavy-read cap,
 * with an ETag (304 to If-None-Match). See docs/security.md.
 */
export function shareRoutes(kit: PageKit) {
  return async (app: FastifyInstance) => {
    const { projectView, stats, verdicts } = app.services;
    const { heavyReads } = app;
    const limits = new ShareLimits(app.config.heavyReads.share);
    const cache = new ResponseCache(app.config.heavyReads.cacheTtlMs);
    app.addHook('onRequest', securityHeaders(STATS_PAGE_POLICY));
    // A 429 (a rate limit, the project's full queue) is sent after a pause, as the API's are: a
    // flood's connections then loop once a second instead of as fast as refusals come.
    pauseRefusals(app);
    // Before anything is read: a refused request costs no database query.
    app.addHook('onRequest', async (request, reply) => {
      const token = (request.params as { token?: string }).token ?? '';
      const wait = limits.admit(token, request.ip);
      if (wait === undefined) return;
      return reply
        .code(429)
        .header('retry-after', String(wait))
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(kit.busyHtml);
    });
    const chrome = { stylesheet: kit.dashboardStylesheet, favicon: kit.favicon };

    const notFound = (reply: FastifyReply) =>
      reply
        .code(404)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(kit.notFoundHtml);

    /**
     * The answer of `path` (the address after the token) for the token's project: from the cache,
     * or computed under the project's cap; 304 when the client has it. An unknown or revoked token
     * is the 404 page.
     */
    const answer: ShareAnswer = async (request, reply, cacheControl, compute) => {
      let owner: ShareOwner;
      try {
        owner = await projectView.shared(request.params.token);
      } catch (error) {
        if (error instanceof NotFound) return notFound(reply);
        throw error;
      }
      // By address (the page's links name its token); the token itself is kept only hashed.
      const address = createHash('sha256').update(request.url).digest('base64url');
      const found = await cache.get(`${owner.projectId} ${address}`, () =>
        heavyReads.run(owner.projectId, () => compute(owner)),
      );
      reply.code(found.status).header('cache-control', cacheControl).header('etag', found.etag);
      if (found.status === 200 && fresh(request.headers, { etag: found.etag })) {
        return reply.code(304).send();
      }
      return reply.type(found.type).send(found.body);
    };

    const HTML = 'text/html; charset=utf-8';
    const SVG = 'image/svg+xml; charset=utf-8';
    const JSON_TYPE = 'application/json; charset=utf-8';

    app.get<{ Params: { token: string } }>('/share/:token', async (request, reply) => {
      const query = viewQueryOf(request.query);
      reply.header('referrer-policy', 'no-referrer');
      return answer(request, reply, SHARE_PAGE_CACHE, async ({ accountId, projectId }) => {
        if (!query) return { status: 400, type: HTML, body: kit.errorHtml(400, request.id) };
        const view = await projectView.forSharedProject({ accountId, projectId }, query);
        const body = renderDocument(
          SharedStatsView({
            view,
            mode: { kind: 'share', path: sharedPath(request.params.token) },
            chrome,
            assets: kit.statsAssets,
          }),
          kit.basePath,
        );
        return { status: 200, type: HTML, body };
      });
    });

    // A table or chart of the page as CSV, as the owner's (csv-export.ts): what the share page
    // shows, with its range and filters, cached and limited as the page is.
    // Only a CSV answer is a download (not the 404 page of a revoked link, nor a refusal).
    const download = {
      onSend: async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        const asked = csvRequestOf(request.query);
        if (asked && String(reply.getHeader('content-type')).startsWith('text/csv')) {
          reply.header('content-disposition', attachment(asked.file));
        }
        return payload;
      },
    };
    app.get<{ Params: { token: string } }>(
      '/share/:token/export.csv',
      download,
      async (request, reply) => {
        const asked = csvRequestOf(request.query);
        reply.header('referrer-policy', 'no-referrer');
        return answer(request, reply, SHARE_PAGE_CACHE, async ({ accountId, projectId }) => {
          if (!asked) {
            const error = "table must be one of the page's tables (and key a chart's).";
            return { status: 400, type: JSON_TYPE, body: JSON.stringify({ error }) };
          }
          const view = await projectView.forSharedProject({ accountId, projectId }, asked.query);
          const csv = exportTable(view, asked.table, asked.key);
          return csv === undefined
            ? { status: 404, type: JSON_TYPE, body: JSON.stringify({ error: 'No points.' }) }
            : { status: 200, type: CSV_TYPE, body: csv };
        });
      },
    );

    // The project's Tests view and a test's page, read-only (pages/tests/share-tests-routes.ts).
    shareTestsRoutes(app, answer, kit, chrome);

    app.get<{ Params: { token: string } }>(
      '/share/:token/badge/status.svg',
      async (request, reply) =>
        answer(request, reply, BADGE_MAX_AGE, async ({ accountId, projectId }) => {
          const query = request.query as Record<string, unknown>;
          const label = one(query.label);
          if (label !== undefined && label.length > MAX_BADGE_LABEL) {
            const error = `label must be at most ${MAX_BADGE_LABEL} characters.`;
            return { status: 400, type: JSON_TYPE, body: JSON.stringify({ error }) };
          }
          const eventType = one(query.eventType);
          const latest = await stats.latestStatusEvent(accountId, projectId, {
            branch: one(query.branch),
            eventType,
          });
          // The label names what the status is of: as asked, else the event's type.
          const shown = label ?? latest?.eventType ?? eventType ?? 'build';
          return { status: 200, type: SVG, body: statusBadge(latest?.status ?? null, shown) };
        }),
    );

    app.get<{ Params: { token: string; key: string } }>(
      '/share/:token/badge/metric/:key',
      async (request, reply) => {
        const { key: file } = request.params;
        if (!file.endsWith('.svg')) return notFound(reply);
        const key = file.slice(0, -'.svg'.length);
        return answer(request, reply, BADGE_MAX_AGE, async ({ accountId, projectId }) => {
          const found = await stats.key(accountId, projectId, key);
          const [described] = found
            ? await verdicts.describeKeys(projectId, [found], { catchUp: false })
            : [];
          const unit = unitOf(key, described?.unit);
          return { status: 200, type: SVG, body: metricBadge(key, described?.last_value, unit) };
        });
      },
    );
  };
}
