import { describe, expect, it } from 'vitest';
import { Paths } from '../../../contract/paths.js';
import { eachTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/**
 * The flaky answer's same-commit probe (services/tests/flaky-summary.ts) asks for (run, test)
 * pairs: `resultsAt(runIds, testIds)` reads `runIds[i]` with `testIds[i]`, not every test of the
 * list in every run of it (the cross product the flaky answer would filter anyway, so only this
 * test can tell the two apart).
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

async function storeRun(buildId: string, statuses: Record<string, 'passed' | 'failed'>) {
  const res = await server.call('POST', Paths.ingestTests, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      buildId,
      commit: 'c1',
      branch: 'main',
      cases: Object.entries(statuses).map(([name, status]) => ({
        suite: 'pairs',
        name,
        duration_ms: 5,
        status,
      })),
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('resultsAt', () => {
  it('reads the (run, test) pairs it is given and no other', async () => {
    await storeRun('b1', { alpha: 'passed', beta: 'failed' });
    await storeRun('b2', { alpha: 'failed', beta: 'passed' });
    const { tests } = server.app.storage;
    const [alpha] = await tests.searchTests(me.projectId, 'alpha');
    const [beta] = await tests.searchTests(me.projectId, 'beta');
    const runs = await tests.runs(me.projectId, {}, 10);
    const b1 = runs.find((run) => run.buildId === 'b1')?.id as number;
    const b2 = runs.find((run) => run.buildId === 'b2')?.id as number;
    expect([alpha, beta, b1, b2].every((id) => typeof id === 'number')).toBe(true);

    const pairs = await tests.resultsAt([b1, b2], [alpha as number, beta as number]);
    const found = pairs
      .map((r) => [r.runId === b1 ? 'b1' : 'b2', r.testId === alpha ? 'alpha' : 'beta', r.status])
      .sort();
    // alpha in b1 passed (0), beta in b2 passed (0): not alpha in b2 nor beta in b1.
    expect(found).toEqual([
      ['b1', 'alpha', 0],
      ['b2', 'beta', 0],
    ]);
    // A pair may repeat a run or a test; a pair with no result gives nothing.
    const more = await tests.resultsAt([b1, b1, b2], [alpha as number, beta as number, 999_999]);
    expect(
      more
        .map((r) => [r.runId === b1 ? 'b1' : 'b2', r.testId === alpha ? 'alpha' : 'beta', r.status])
        .sort(),
    ).toEqual([
      ['b1', 'alpha', 0],
      ['b1', 'beta', 1],
    ]);
    expect(await tests.resultsAt([], [])).toEqual([]);
  });
});
