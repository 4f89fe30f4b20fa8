import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { OwnError } from '../../../../contract/error-texts.js';
import { Areas, Paths } from '../../../../contract/paths.js';
import type { ProjectSummaries } from '../../../../contract/summaries.js';
import { ProjectBusy } from '../../heavy-reads/project-gate.js';
import { within } from '../area.js';
import { AT, PROJECT } from '../examples.js';

/** GET /stats/get-project-summaries: every project of the caller at a glance (7 days). */
export const summaryRoutes: FastifyPluginAsyncZod = async (app) => {
  const { projectSummaries } = app.services;

  app.get(
    within(Areas.stats, Paths.getProjectSummaries),
    {
      schema: {
        summary:
          'Every project at a glance over the last 7 days, the one that needs attention first',
      },
      config: {
        docs: {
          success: {
            example: {
              from: AT,
              to: AT,
              projects: [
                {
                  id: PROJECT.id,
                  name: PROJECT.name,
                  latest: { status: 'failure', event_type: 'build' },
                  success: 9,
                  failure: 3,
                  success_rate: 0.75,
                  duration_key: 'duration_ms',
                  median_duration: 95_000,
                  days: [
                    {
                      start: AT,
                      success: 2,
                      failure: 1,
                      success_rate: 0.6667,
                      median_duration: 94_000,
                    },
                  ],
                  active_alerts: 1,
                  flaky_tests: 2,
                  attention: ['latest-failed', 'active-alerts', 'failures', 'flaky-tests'],
                },
              ],
            } satisfies ProjectSummaries,
          },
        },
      },
    },
    async (request, reply): Promise<ProjectSummaries> => {
      try {
        // Each project's reads under its heavy-read cap, as the API's other statistics reads.
        return await projectSummaries.summaries(request.account, (projectId, read) =>
          app.heavyReads.run(projectId, read),
        );
      } catch (error) {
        if (error instanceof ProjectBusy) {
          reply.header('retry-after', String(error.retryAfterS));
          throw Object.assign(new Error(OwnError.projectBusy), { statusCode: 429 });
        }
        throw error;
      }
    },
  );
};
