import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TestLimits } from '../../../../contract/tests/test-limits.js';
import { NotFound } from '../../../domain/domain-errors.js';
import { layoutOf, redirectTo, sendPage, textOf } from '../dashboard/dashboard-pages.js';
import type { Chrome } from '../dashboard/views/dashboard-layout.js';
import { MAX_TEST_ID_LENGTH, testsViewData, testViewData } from './tests-data.js';
import { testsQueryOf } from './tests-query.js';
import { TestView } from './views/test-view.js';
import { TestsView } from './views/tests-view.js';

type TestsRequest = FastifyRequest<{ Params: { id: string; test?: string } }>;

const status = (statusCode: number, message: string) =>
  Object.assign(new Error(message), { statusCode });

/** Another account's project, an unknown one or an unknown test: the one 404 page. */
async function orNotFound<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const kind = (error as { kind?: string }).kind;
    if (error instanceof NotFound || kind === 'forbidden') throw status(404, 'no such page');
    throw error;
  }
}

/**
 * /dashboard/projects/<id>/tests: the project's Tests view (flaky, most failing, slowest, a
 * search), and /tests/<test>: one test's history, with its quarantine form (docs/tests.md).
 */
export function testsPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { testQueries, quarantine } = app.services;
    const projectPath = (id: string) => `/dashboard/projects/${encodeURIComponent(id)}`;

    app.get('/projects/:id/tests', async (request, reply: FastifyReply) => {
      const { id } = (request as TestsRequest).params;
      const query = testsQueryOf(request.query);
      if (!query) throw status(400, 'bad tests query');
      const data = await app.heavyReads.run(id, () =>
        orNotFound(() => testsViewData(testQueries, request.session.accountId, id, query)),
      );
      const layout = await layoutOf(request, reply, chrome);
      return sendPage(
        reply,
        TestsView({
          frame: { kind: 'owner', ...layout },
          projectPath: projectPath(id),
          query,
          ...data,
        }),
      );
    });

    app.get('/projects/:id/tests/:test', async (request, reply: FastifyReply) => {
      const { id, test = '' } = (request as TestsRequest).params;
      if (test.length > MAX_TEST_ID_LENGTH) throw status(404, 'no such test');
      const query = testsQueryOf(request.query);
      if (!query) throw status(400, 'bad tests query');
      const data = await app.heavyReads.run(id, () =>
        orNotFound(() => testViewData(testQueries, request.session.accountId, id, test, query)),
      );
      const layout = await layoutOf(request, reply, chrome);
      return sendPage(
        reply,
        TestView({
          frame: { kind: 'owner', ...layout },
          testsPath: `${projectPath(id)}/tests`,
          query,
          ...data,
        }),
      );
    });

    // The owner quarantines a test (with a reason), or takes it out; then back to its page.
    app.post('/projects/:id/tests/:test/quarantine', async (request, reply) => {
      const { id, test = '' } = (request as TestsRequest).params;
      const form = (request.body ?? {}) as Record<string, unknown>;
      const caller = { accountId: request.session.accountId, projectIds: null };
      const on = textOf(form.quarantined) !== 'false';
      const reason = textOf(form.reason).trim();
      if (on && (reason === '' || reason.length > TestLimits.reasonLength)) {
        throw status(400, 'a reason of 1-500 characters is needed');
      }
      await orNotFound(() =>
        on
          ? quarantine.quarantine(caller, { projectId: id, test, reason })
          : quarantine.unquarantine(caller, { projectId: id, test }),
      );
      return redirectTo(reply, `${projectPath(id)}/tests/${encodeURIComponent(test)}`);
    });
  };
}
