import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ExportQuery } from '../../../../contract/export.js';
import { MAX_RETENTION_DAYS, SetRetentionRequest } from '../../../../contract/retention.js';
import { type AnyDomainError, DomainError } from '../../../domain/domain-errors.js';
import { describeDomainError } from '../../api/domain-error-mapping.js';
import { sendExport } from '../../api/routes/export-routes.js';
import { layoutOf, redirectTo, sendPage, textOf } from './dashboard-pages.js';
import type { Chrome } from './views/dashboard-layout.js';
import { ProjectDataView } from './views/data-view.js';

type ProjectRequest = FastifyRequest<{ Params: { id: string } }>;

const noSuchProject = () => Object.assign(new Error('no such project'), { statusCode: 404 });

/** Another account's project, or an unknown one, is the 404 page. */
const orNoSuchProject = (error: unknown): never => {
  if (error instanceof DomainError && error.kind === 'forbidden') throw noSuchProject();
  throw error;
};

/**
 * /dashboard/projects/<id>/data: the project's storage use, its retention (set with a form, as
 * POST /stats/set-retention does) and its export, streamed for the signed-in owner by the same
 * service as GET /stats/export (which takes API keys only).
 */
export function dataPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { projects, retention, storageUse, exports } = app.services;
    const owner = (request: FastifyRequest) => ({
      accountId: request.session.accountId,
      projectIds: null,
    });

    async function page(
      request: ProjectRequest,
      reply: FastifyReply,
      refused?: { value: string; error: string },
    ) {
      const { id } = request.params;
      const [project] = (await projects.list(owner(request))).filter((p) => p.id === id);
      if (!project) throw noSuchProject();
      const [use, kept] = await Promise.all([
        storageUse.ofProject(owner(request), id),
        retention.get(owner(request), id),
      ]);
      return sendPage(
        reply,
        ProjectDataView({
          ...(await layoutOf(request, reply, chrome)),
          project,
          use,
          retentionDays: kept.retentionDays,
          refused,
        }),
        refused ? 400 : 200,
      );
    }

    app.get('/projects/:id/data', async (request, reply) =>
      page(request as ProjectRequest, reply).catch(orNoSuchProject),
    );

    app.post('/projects/:id/data/retention', async (request, reply) => {
      const { id } = (request as ProjectRequest).params;
      const value = textOf(
        (request.body as { retention_days?: unknown } | undefined)?.retention_days,
      );
      const typed = value.trim();
      const days = typed === '' ? null : /^\d+$/.test(typed) ? Number(typed) : Number.NaN;
      const parsed = SetRetentionRequest.safeParse({ projectId: id, retentionDays: days });
      if (!parsed.success) {
        const error = Number.isNaN(days)
          ? 'Enter a whole number of days, or nothing to keep the records forever.'
          : `Enter 1 to ${MAX_RETENTION_DAYS} days, or nothing to keep the records forever.`;
        return page(request as ProjectRequest, reply, { value, error }).catch(orNoSuchProject);
      }
      await retention.set(owner(request), id, parsed.data.retentionDays).catch(orNoSuchProject);
      return redirectTo(
        reply,
        `/dashboard/projects/${encodeURIComponent(id)}/data`,
        'retention-saved',
      );
    });

    app.get('/projects/:id/export', async (request, reply) => {
      const { id } = (request as ProjectRequest).params;
      const query = ExportQuery.safeParse({ ...(request.query as object), projectId: id });
      if (!query.success) {
        const issue = query.error.issues[0];
        return reply
          .code(400)
          .send({ error: `${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}` });
      }
      try {
        return sendExport(reply, query.data, await exports.open(owner(request), query.data));
      } catch (error) {
        // As the API answers: a bad range 400, an unknown `after` 404, each with its text.
        if (!(error instanceof DomainError) || error.kind === 'forbidden') orNoSuchProject(error);
        const { status, text } = describeDomainError(error as AnyDomainError);
        return reply.code(status).send({ error: text });
      }
    });
  };
}
