import { expect } from 'vitest';
import { Paths } from '../../contract/paths.js';
import type { TestCase } from '../../contract/tests/ingest-tests.js';
import type { TestAccount, TestServer } from './server.js';

type Outcome = 'P' | 'F' | 'R'; // passed, failed, passed on retry

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
