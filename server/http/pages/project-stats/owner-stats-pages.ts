import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Limits } from '../../../../contract/limits.js';
import { MAX_MARK_EVENT_TYPES } from '../../../../contract/project-page.js';
import { sharePath } from '../../../../contract/share-links.js';
import { InvalidField, NotFound } from '../../../domain/domain-errors.js';
import { publicBaseOf } from '../../base-path.js';
import { layoutOf, redirectTo, sendPage, textOf } from '../dashboard/dashboard-pages.js';
import type { Chrome, PageAssets } from '../dashboard/views/dashboard-layout.js';
import { STATS_PAGE_POLICY, securityHeaders } from '../security-headers.js';
import { attachment, CSV_TYPE, csvRequestOf, exportTable } from './csv-export.js';
import { keepNewShareLink, takeNewShareLink } from './new-share-link.js';
import { viewQueryOf } from './view-query.js';
import { OwnerStatsView } from './views/project-stats-view.js';

/** As the API's update-duration-key and update-key-display accept (a series key's longest). */
const MAX_DURATION_KEY_LENGTH = 200;

type ProjectRequest = FastifyRequest<{ Params: { id: string } }>;

/**
 * /dashboard/projects/<id>: a project's statistics for its owner, with its share links (create,
 * copy, revoke). Another account's project, or an unknown one, is the 404 page.
 */
export function ownerStatsPages(chrome: Chrome, assets: PageAssets) {
  return async (app: FastifyInstance) => {
    const { projectView, shareLinks, headline, keyDisplay } = app.services;
    // This page runs scripts of ours (the charts): its own policy replaces the dashboard's.
    const statsHeaders = securityHeaders(STATS_PAGE_POLICY);

    async function page(
      request: ProjectRequest,
      reply: FastifyReply,
      created?: { url: string; path: string },
    ) {
      const query = viewQueryOf(request.query);
      if (!query) throw Object.assign(new Error('bad statistics query'), { statusCode: 400 });
      const { id } = request.params;
      try {
        // Under the project's heavy-read cap, like its share pages and the API's reads.
        const view = await app.heavyReads.run(id, () =>
          projectView.forOwner(request.session.accountId, id, query),
        );
        const layout = await layoutOf(request, reply, chrome);
        return sendPage(
          reply,
          OwnerStatsView({
            ...layout,
            view,
            chrome,
            assets,
            mode: {
              kind: 'owner',
              path: `/dashboard/projects/${encodeURIComponent(id)}`,
              csrf: layout.csrf,
              created,
            },
          }),
        );
      } catch (error) {
        if (error instanceof NotFound) {
          throw Object.assign(new Error('no such project'), { statusCode: 404 });
        }
        throw error;
      }
    }

    app.get('/projects/:id', { onRequest: statsHeaders }, async (request, reply) => {
      const { id } = (request as ProjectRequest).params;
      const token = takeNewShareLink(request, reply, id);
      return page(
        request as ProjectRequest,
        reply,
        token === undefined
          ? undefined
          : { url: `${originOf(request)}${sharePath(token)}`, path: sharePath(token) },
      );
    });

    const originOf = publicBaseOf;

    // Post/redirect/get: the new link rides to the page in a cookie read once (new-share-link.ts),
    // so a refresh neither posts again nor shows the link again.
    app.post('/projects/:id/share-links', async (request, reply) => {
      const { id } = (request as ProjectRequest).params;
      try {
        const link = await shareLinks.create(request.session.accountId, id, originOf(request));
        keepNewShareLink(request, reply, id, link.token);
        return redirectTo(reply, `/dashboard/projects/${encodeURIComponent(id)}`);
      } catch (error) {
        if (error instanceof NotFound || (error as { kind?: string }).kind === 'forbidden') {
          throw Object.assign(new Error('no such project'), { statusCode: 404 });
        }
        throw error;
      }
    });

    // A table or chart of the page as CSV, for the same range and filters (csv-export.ts).
    app.get('/projects/:id/export.csv', { onRequest: statsHeaders }, async (request, reply) => {
      const { id } = (request as ProjectRequest).params;
      const asked = csvRequestOf(request.query);
      if (!asked) throw Object.assign(new Error('bad export query'), { statusCode: 400 });
      let csv: string | undefined;
      try {
        // A file has no room for the page's notice of records still to judge: it waits for all.
        const view = await app.heavyReads.run(id, () =>
          projectView.forOwner(request.session.accountId, id, asked.query, 'all'),
        );
        csv = exportTable(view, asked.table, asked.key);
      } catch (error) {
        if (error instanceof NotFound) {
          throw Object.assign(new Error('no such project'), { statusCode: 404 });
        }
        throw error;
      }
      if (csv === undefined) {
        throw Object.assign(new Error('no points for this key in the range'), { statusCode: 404 });
      }
      return reply.type(CSV_TYPE).header('content-disposition', attachment(asked.file)).send(csv);
    });

    // The build-duration key of the headline; empty: back to the default (duration_ms).
    app.post('/projects/:id/duration-key', async (request, reply) => {
      const { id } = (request as ProjectRequest).params;
      const text = textOf((request.body as { duration_key?: unknown } | undefined)?.duration_key);
      const key = text.trim();
      if (key.length > MAX_DURATION_KEY_LENGTH) {
        throw Object.assign(new Error('the build-duration key is too long'), { statusCode: 400 });
      }
      try {
        await headline.setDurationKey(request.session.accountId, id, key === '' ? null : key);
      } catch (error) {
        if (error instanceof NotFound || (error as { kind?: string }).kind === 'forbidden') {
          throw Object.assign(new Error('no such project'), { statusCode: 404 });
        }
        throw error;
      }
      return redirectTo(
        reply,
        `/dashboard/projects/${encodeURIComponent(id)}`,
        'duration-key-saved',
      );
    });

    // The event types marked on the charts, separated by commas; empty: back to the default.
    app.post('/projects/:id/mark-types', async (request, reply) => {
      const { id } = (request as ProjectRequest).params;
      const text = textOf((request.body as { event_types?: unknown } | undefined)?.event_types);
      const types = text
        .split(',')
        .map((type) => type.trim())
        .filter((type) => type !== '');
      if (types.length > MAX_MARK_EVENT_TYPES) {
        throw Object.assign(new Error(`at most ${MAX_MARK_EVENT_TYPES} event types`), {
          statusCode: 400,
        });
      }
      if (types.some((type) => type.length > Limits.eventTypeLength)) {
        throw Object.assign(new Error('an event type is too long'), { statusCode: 400 });
      }
      try {
        await keyDisplay.setMarkTypes(
          request.session.accountId,
          id,
          types.length === 0 ? null : types,
        );
      } catch (error) {
        if (error instanceof NotFound || (error as { kind?: string }).kind === 'forbidden') {
          throw Object.assign(new Error('no such project'), { statusCode: 404 });
        }
        throw error;
      }
      return redirectTo(reply, `/dashboard/projects/${encodeURIComponent(id)}`, 'mark-types-saved');
    });

    // Pins, hides or (display empty) shows a key on this page, as the API's update-key-display.
    app.post('/projects/:id/key-display', async (request, reply) => {
      const { id } = (request as ProjectRequest).params;
      const body = request.body as { key?: unknown; display?: unknown } | undefined;
      const key = textOf(body?.key);
      const display = textOf(body?.display);
      if (key === '' || key.length > MAX_DURATION_KEY_LENGTH) {
        throw Object.assign(new Error('the key is missing or too long'), { statusCode: 400 });
      }
      if (display !== '' && display !== 'pinned' && display !== 'hidden') {
        throw Object.assign(new Error('display must be pinned, hidden or empty'), {
          statusCode: 400,
        });
      }
      try {
        await keyDisplay.set(request.session.accountId, id, key, display === '' ? null : display);
      } catch (error) {
        if (error instanceof NotFound || (error as { kind?: string }).kind === 'forbidden') {
          throw Object.assign(new Error('no such project'), { statusCode: 404 });
        }
        if (error instanceof InvalidField) {
          throw Object.assign(new Error(error.text), { statusCode: 400 });
        }
        throw error;
      }
      return redirectTo(
        reply,
        `/dashboard/projects/${encodeURIComponent(id)}`,
        'key-display-saved',
      );
    });

    app.post('/projects/:id/share-links/revoke', async (request, reply) => {
      const { id } = (request as ProjectRequest).params;
      const linkId = textOf((request.body as { id?: unknown } | undefined)?.id);
      try {
        await shareLinks.revokeById(request.session.accountId, linkId);
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
        throw Object.assign(new Error('no such share link'), { statusCode: 404 });
      }
      return redirectTo(
        reply,
        `/dashboard/projects/${encodeURIComponent(id)}`,
        'share-link-revoked',
      );
    });
  };
}
