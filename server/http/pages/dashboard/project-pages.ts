import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OwnError } from '../../../../contract/error-texts.js';
import { CreateProjectRequest } from '../../../../contract/projects.js';
import { Conflict } from '../../../domain/domain-errors.js';
import { layoutOf, redirectTo, sendPage, textOf } from './dashboard-pages.js';
import { type FieldErrors, fieldErrors } from './form-errors.js';
import type { Chrome } from './views/dashboard-layout.js';
import { ProjectsView } from './views/projects-view.js';

/** /dashboard/projects: list and create (POST /stats/create-project's service). */
export function projectPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { projects, storageUse } = app.services;

    async function page(
      request: FastifyRequest,
      reply: FastifyReply,
      errors: FieldErrors = {},
      name?: string,
    ) {
      const { accountId } = request.session;
      const [list, uses] = await Promise.all([
        projects.list({ accountId, projectIds: null }),
        storageUse.ofAccount(accountId),
      ]);
      return sendPage(
        reply,
        ProjectsView({
          ...(await layoutOf(request, reply, chrome)),
          projects: list,
          uses: new Map(uses.map((use) => [use.projectId, use])),
          errors,
          name,
        }),
        Object.keys(errors).length > 0 ? 400 : 200,
      );
    }

    app.get('/projects', async (request, reply) => page(request, reply));

    app.post('/projects', async (request, reply) => {
      const name = textOf((request.body as { name?: unknown } | undefined)?.name);
      const parsed = CreateProjectRequest.safeParse({ name });
      if (!parsed.success) return page(request, reply, fieldErrors(parsed.error.issues), name);
      try {
        await projects.create(request.session.accountId, parsed.data.name);
      } catch (error) {
        if (!(error instanceof Conflict)) throw error;
        return page(request, reply, { name: OwnError.projectNameTaken }, name);
      }
      return redirectTo(reply, '/dashboard/projects', 'project-created');
    });
  };
}
