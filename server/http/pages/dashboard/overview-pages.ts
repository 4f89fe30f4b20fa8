import type { FastifyInstance } from 'fastify';
import { layoutOf, sendPage } from './dashboard-pages.js';
import type { Chrome } from './views/dashboard-layout.js';
import { OverviewView } from './views/overview-view.js';

/** GET /dashboard: the account at a glance. */
export function overviewPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { displayName, site, forwarding, projectSummaries, verdicts } = app.services;

    app.get('/', async (request, reply) => {
      const { accountId } = request.session;
      const [name, configuration, forwardingStatus, summaries] = await Promise.all([
        displayName.get(accountId),
        site.get(accountId),
        forwarding.status(accountId),
        // The same summaries as the API's, each project under its heavy-read cap, after a bounded
        // wait for the judging (issue 28): the alerts as judged then, with a notice of the rest.
        verdicts.judgedForPage().then(async (pending) => ({
          pending,
          ...(await projectSummaries.summaries(
            { accountId, projectIds: null },
            (projectId, read) => app.heavyReads.run(projectId, read),
            undefined,
            { catchUp: false },
          )),
        })),
      ]);
      return sendPage(
        reply,
        OverviewView({
          ...(await layoutOf(request, reply, chrome)),
          displayName: name.display_name,
          alias: name.alias,
          visible: configuration.visibility,
          forwarding: forwardingStatus,
          projects: summaries.projects,
          pendingJudging: summaries.pending,
        }),
      );
    });
  };
}
