import type { FastifyInstance } from 'fastify';
import { layoutOf, sendPage } from './dashboard-pages.js';
import type { Chrome } from './views/dashboard-layout.js';
import { OverviewView } from './views/overview-view.js';

/** GET /dashboard: the account at a glance. */
export function overviewPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { displayName, site, forwarding, projects, records } = app.services;

    app.get('/', async (request, reply) => {
      const { accountId } = request.session;
      const [name, configuration, forwardingStatus, list] = await Promise.all([
        displayName.get(accountId),
        site.get(accountId),
        forwarding.status(accountId),
        projects.list({ accountId, projectIds: null }),
      ]);
      const latest = await Promise.all(
        list.map(async (project) => ({
          project,
          latest: (await records.events(accountId, { projectId: project.id, limit: 1 })).events[0],
        })),
      );
      return sendPage(
        reply,
        OverviewView({
          ...(await layoutOf(request, reply, chrome)),
          displayName: name.display_name,
          alias: name.alias,
          visible: configuration.visibility,
          forwarding: forwardingStatus,
          projects: latest,
        }),
      );
    });
  };
}
