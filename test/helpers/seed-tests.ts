import { expect } from 'vitest';
import { Paths } from '../../contract/paths.js';
import type { TestCase } from '../../contract/tests/ingest-tests.js';
import { resultsOf } from '../../server/domain/tests/test-batch.js';
import { runIdOf } from '../../server/domain/tests/test-identity.js';
import type { TestRunFacts } from '../../server/storage/tests/test-repository.js';
import type { TestAccount, TestServer } from './server.js';

export type Outcome = 'P' | 'F' | 'R'; // passed, failed, passed on retry

/** A `checkout` test's case with this outcome (the channel tests' runs). */
export const checkoutCase = (name: string, outcome: Outcome): TestCase => ({
  suite: 'checkout',
  name,
  duration_ms: 12,
  status: outcome === 'F' ? 'failed' : 'passed',
  ...(outcome === 'R' ? { attempts: 2 } : {}),
});

/**
 * Planted outcomes in main's runs 1-8: one flaky test (it passed on retry at c7), one broken,
 * one slow, steady ones.
 */
export const PLANTED: Record<string, Outcome[]> = {
  flips: ['P', 'F', 'P', 'P', 'F', 'P', 'R', 'P'],
  broken: ['P', 'P', 'P', 'P', 'F', 'F', 'F', 'F'],
  slow: ['P', 'P', 'P', 'P', 'P', 'P', 'P', 'P'],
  'steady 1': ['P', 'P', 'P', 'P', 'P', 'P', 'P', 'P'],
  'steady 2': ['P', 'P', 'P', 'P', 'P', 'P', 'P', 'P'],
};
export const RUNS = 8;

const testCase = (name: string, outcome: Outcome, n: number): TestCase => ({
  suite: 'planted',
  name,
  duration_ms: name === 'slow' ? 4000 + n * 100 : 10 + n,
  status: outcome === 'F' ? 'failed' : 'passed',
  ...(outcome === 'F' ? { message: `${name} failed: expected 1 to be 2` } : {}),
  ...(outcome === 'R' ? { attempts: 2 } : {}),
});

/** Stores the planted history: run n at commit c<n> on main. */
export async function seedTests(server: TestServer, me: TestAccount): Promise<void> {
  for (let n = 0; n < RUNS; n++) {
    const res = await server.call('POST', Paths.ingestTests, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        buildId: `b${n + 1}`,
        commit: `c${n + 1}`,
        branch: 'main',
        cases: Object.entries(PLANTED).map(([name, outcomes]) =>
          testCase(name, outcomes[n] as Outcome, n),
        ),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
}

/**
 * Stores a run's cases at `at` through the real storage, as POST /stats/ingest-tests stores a
 * batch (the same merge of repeats, the same run id); `facts` adds to the run's identity.
 */
export async function storeTestRun(
  server: TestServer,
  projectId: string,
  at: number,
  buildId: string,
  cases: readonly TestCase[],
  facts: Partial<Pick<TestRunFacts, 'commit' | 'branch' | 'pullRequest' | 'eventId'>> = {},
): Promise<{ key: string }> {
  const key = runIdOf(buildId, 1);
  await server.app.storage.tests.ingest({
    run: {
      projectId,
      key,
      buildId,
      attempt: 1,
      commit: null,
      branch: null,
      pullRequest: null,
      eventId: null,
      ...facts,
    },
    results: resultsOf(cases),
    at,
  });
  return { key };
}
