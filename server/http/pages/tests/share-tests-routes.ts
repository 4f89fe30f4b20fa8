import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../../domain/domain-errors.js';
import type { Chrome } from '../dashboard/views/dashboard-layout.js';
import { renderDocument } from '../html-document.js';
import type { PageKit } from '../page-kit.js';
import { SHARE_PAGE_CACHE, type ShareAnswer, sharedPath } from '../project-stats/share-answer.js';
import { MAX_TEST_ID_LENGTH, testsViewData, testViewData } from './tests-data.js';
import { testsQueryOf } from './tests-query.js';
import { TestView } from './views/test-view.js';
import { TestsView } from './views/tests-view.js';

const HTML = 'text/html; charset=utf-8';

/**
 * /share/<token>/tests and /share/<token>/tests/<test>: the Tests view and a test's page of the
 * token's project, read-only (no quarantine form), with the owner's pages' range, branch, tabs
 * and search. They pass the share pages' rate limits, cache and heavy-read cap (`answer`); a test
 * of another project, like an unknown one, is the 404 page.
 */
export function shareTestsRoutes(
  app: FastifyInstance,
  answer: ShareAnswer,
  kit: PageKit,
  chrome: Chrome,
) {
  const { testQueries } = app.services;
  const frame = { kind: 'share', chrome } as const;
  const notFound = { status: 404, type: HTML, body: kit.notFoundHtml };
  const badQuery = (requestId: string) => ({
    status: 400,
    type: HTML,
    body: kit.errorHtml(400, requestId),
  });

  app.get<{ Params: { token: string } }>('/share/:token/tests', async (request, reply) => {
    const query = testsQueryOf(request.query);
    reply.header('referrer-policy', 'no-referrer');
    return answer(request, reply, SHARE_PAGE_CACHE, async ({ accountId, projectId }) => {
      if (!query) return badQuery(request.id);
      const data = await testsViewData(testQueries, accountId, projectId, query);
      const projectPath = sharedPath(request.params.token);
      const body = renderDocument(TestsView({ frame, projectPath, query, ...data }), kit.basePath);
      return { status: 200, type: HTML, body };
    });
  });

  app.get<{ Params: { token: string; test: string } }>(
    '/share/:token/tests/:test',
    async (request, reply) => {
      const { test } = request.params;
      const query = testsQueryOf(request.query);
      reply.header('referrer-policy', 'no-referrer');
      return answer(request, reply, SHARE_PAGE_CACHE, async ({ accountId, projectId }) => {
        if (test.length > MAX_TEST_ID_LENGTH) return notFound;
        if (!query) return badQuery(request.id);
        let data: Awaited<ReturnType<typeof testViewData>>;
        try {
          data = await testViewData(testQueries, accountId, projectId, test, query);
        } catch (error) {
          if (error instanceof NotFound) return notFound;
          throw error;
        }
        const testsPath = `${sharedPath(request.params.token)}/tests`;
        const body = renderDocument(TestView({ frame, testsPath, query, ...data }), kit.basePath);
        return { status: 200, type: HTML, body };
      });
    },
  );
}
