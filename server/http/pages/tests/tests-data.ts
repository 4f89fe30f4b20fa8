import { Limits } from '../../../../contract/limits.js';
import type { TestQueryService } from '../../../services/tests/test-query-service.js';
import { sortOfTab, type TestsPageQuery } from './tests-query.js';

/**
 * What the Tests pages read, for the owner's dashboard and a share link alike (the share link
 * reads as the project's owner, `accountId`, once its token named the project).
 */

/** The Tests view: its headline and the tab's page of tests (the range analysed once). */
export async function testsViewData(
  testQueries: TestQueryService,
  accountId: string,
  projectId: string,
  query: TestsPageQuery,
) {
  return testQueries.view(accountId, {
    projectId,
    branch: query.branch,
    from: query.range.from,
    to: query.range.to,
    sort: sortOfTab(query.tab),
    order: query.order,
    dir: query.dir,
    q: query.q,
    limit: Limits.pageSizeDefault,
    cursor: query.cursor,
  });
}

/** A test's page: its history and messages, and its line of the Tests view over the range. */
export async function testViewData(
  testQueries: TestQueryService,
  accountId: string,
  projectId: string,
  test: string,
  query: TestsPageQuery,
) {
  const detail = await testQueries.test(accountId, { projectId, test });
  const summary = await testQueries.summary(accountId, {
    projectId,
    test,
    branch: query.branch,
    from: query.range.from,
    to: query.range.to,
  });
  return { detail, summary };
}

/** A test id longer than any the storage makes: no such test, without a query. */
export const MAX_TEST_ID_LENGTH = 64;
