import { beforeEach, describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../../contract/error-texts.js';
import { Paths } from '../../../contract/paths.js';
import type { TestCase } from '../../../contract/tests/ingest-tests.js';
import type { TestDetail, TestList, TestRunList } from '../../../contract/tests/test-queries.js';
import { eachTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/**
 * A generated history with planted flaky, failing, newly failing and slow tests: the answers
 * name exactly those (precision and recall 100 % on the planted set), on both backends.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started), {
  RATE_LIMIT_INGEST_PER_MINUTE: '0',
  RATE_LIMIT_OTHER_PER_MINUTE: '0',
});

type Outcome = 'P' | 'F' | 'R'; // passed, failed, passed on retry
/** Planted: each test's outcome in main's runs 1-12 (index 0-11). */
const FLIPS: Outcome[] = ['P', 'P', 'F', 'P', 'P', 'P', 'F', 'P', 'P', 'P', 'P', 'P'];
const RETRY: Outcome[] = ['P', 'P', 'P', 'R', 'P', 'P', 'P', 'P', 'P', 'P', 'P', 'P'];
const BROKEN: Outcome[] = ['P', 'P', 'P', 'P', 'P', 'P', 'F', 'F', 'F', 'F', 'F', 'F'];
const STEADY = Array.from({ length: 5 }, (_, i) => `steady ${i}`);

const testCase = (name: string, outcome: Outcome, duration = 10): TestCase => ({
  suite: 'planted',
  name,
  duration_ms: duration,
  status: outcome === 'F' ? 'failed' : 'passed',
  ...(outcome === 'F' ? { message: `${name} failed` } : {}),
  ...(outcome === 'R' ? { attempts: 2 } : {}),
});

async function ingest(buildId: string, commit: string, cases: TestCase[]) {
  const res = await server.call('POST', Paths.ingestTests, {
    key: me.apiKey,
    body: { projectId: me.projectId, buildId, commit, branch: 'main', cases },
  });
  expect(res.statusCode).toBe(200);
}

async function get<T>(path: string, query: Record<string, string>): Promise<T> {
  const params = new URLSearchParams({ projectId: me.projectId, ...query });
  const res = await server.call('GET', `${path}?${params}`, { key: me.apiKey });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as T;
}

beforeEach(async () => {
  for (let n = 0; n < 12; n++) {
    await ingest(`b${n + 1}`, `c${n + 1}`, [
      ...STEADY.map((name) => testCase(name, 'P')),
      testCase('flips', FLIPS[n] as Outcome),
      testCase('retry', RETRY[n] as Outcome),
      testCase('broken', BROKEN[n] as Outcome),
      testCase('slow', 'P', 5000 + n),
      testCase('commit mix', 'P'),
    ]);
    // Commit c3 run again: there `commit mix` fails (it passed at c3 the first time).
    if (n === 2) {
      await ingest('b3-rerun', 'c3', [
        ...STEADY.map((name) => testCase(name, 'P')),
        testCase('flips', 'P'),
        testCase('retry', 'P'),
        testCase('broken', 'P'),
        testCase('slow', 'P', 5000),
        testCase('commit mix', 'F'),
      ]);
    }
  }
});

/** Main's runs in order, as stored: b1, b2, b3, b3-rerun, b4... b12. */
const sequence = (outcomes: Outcome[], rerun: Outcome): Outcome[] => [
  ...outcomes.slice(0, 3),
  rerun,
  ...outcomes.slice(3),
];

/** The flaky score as docs/tests.md defines it, computed here on its own. */
function score(outcomes: Outcome[]): number {
  const last = outcomes.slice(-30);
  let sum = 0;
  let weights = 0;
  last.forEach((outcome, i) => {
    const k = last.length - 1 - i;
    const before = last[i - 1];
    const failed = (o: Outcome) => o === 'F';
    const signal =
      (outcome !== 'P' ? 1 : 0) +
      (before !== undefined && failed(before) !== failed(outcome) ? 1 : 0);
    sum += 0.5 ** (k / 10) * signal;
    weights += 0.5 ** (k / 10);
  });
  return Math.round((sum / weights) * 1000) / 1000;
}

describe('GET /stats/get-tests', () => {
  it('sort=flaky names exactly the planted flaky tests, with their scores and commits', async () => {
    const list = await get<TestList>(Paths.getTests, { sort: 'flaky' });
    expect(list.runs).toBe(13);
    expect(list.branch).toBe('main');
    const flaky = Object.fromEntries(list.tests.map((t) => [t.name, t]));
    expect(Object.keys(flaky).sort()).toEqual(['commit mix', 'flips', 'retry']);
    expect(flaky.flips?.flaky_score).toBe(score(sequence(FLIPS, 'P')));
    expect(flaky.retry?.flaky_score).toBe(score(sequence(RETRY, 'P')));
    expect(flaky['commit mix']?.flaky_score).toBe(score(sequence(Array(12).fill('P'), 'F')));
    // Ranked by score.
    const scores = list.tests.map((t) => t.flaky_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Where they flaked: the flips of `flips` (runs b3, b3-rerun, b7, b8 of main: c3 twice),
    // the retry at c4, both runs of commit c3.
    expect(flaky.flips?.flaky_commits).toEqual(['c8', 'c7', 'c3']);
    expect(flaky.retry?.flaky_commits).toEqual(['c4']);
    expect(flaky.retry?.passed_on_retry).toBe(1);
    expect(flaky['commit mix']?.flaky_commits).toEqual(['c3']);
    expect(flaky['commit mix']?.failure_rate).toBe(Math.round((1 / 13) * 1000) / 1000);
  });

  it('sort=failing ranks by failure rate; sort=slowest by p95; q searches names', async () => {
    const failing = await get<TestList>(Paths.getTests, { sort: 'failing' });
    expect(failing.tests.map((t) => [t.name, t.failed, t.failure_rate])).toEqual([
      ['broken', 6, Math.round((6 / 13) * 1000) / 1000],
      ['flips', 2, Math.round((2 / 13) * 1000) / 1000],
      ['commit mix', 1, Math.round((1 / 13) * 1000) / 1000],
    ]);
    const slowest = await get<TestList>(Paths.getTests, { sort: 'slowest', limit: '2' });
    // Durations 5000-5011 and 5000 again (the re-run): 13 values, nearest rank, read from the
    // kept days' 2 % bins (docs/tests.md, "Kept per day"): the value that stands for the bin of
    // the value at that rank, rounded.
    const durations = [5000, 5000, ...Array.from({ length: 11 }, (_, i) => 5001 + i)];
    const gamma = 1.02 / 0.98;
    const binned = (v: number) =>
      Math.round((2 * gamma ** Math.ceil(Math.log(v) / Math.log(gamma))) / (gamma + 1));
    expect(slowest.tests[0]).toMatchObject({
      name: 'slow',
      p50_ms: binned(durations[Math.ceil(0.5 * 13) - 1] as number),
      p95_ms: binned(durations[Math.ceil(0.95 * 13) - 1] as number),
    });
    expect(slowest.tests).toHaveLength(2);
    const rest = await get<TestList>(Paths.getTests, {
      sort: 'slowest',
      limit: '2',
      cursor: slowest.nextCursor as string,
    });
    expect(rest.tests.map((t) => t.name)).not.toContain('slow');
    const named = await get<TestList>(Paths.getTests, { sort: 'name', q: 'STEADY' });
    expect(named.tests.map((t) => t.name)).toEqual(STEADY);
    expect(named.tests.every((t) => !t.flaky && t.failed === 0)).toBe(true);
  });

  it('refuses a bad query and a foreign project like the other reads', async () => {
    const bad = await server.call('GET', `${Paths.getTests}?projectId=${me.projectId}&sort=worst`, {
      key: me.apiKey,
    });
    expect(bad.statusCode).toBe(400);
    expect((bad.json() as { error: string }).error).toBe(SpecError.invalidBody);
    const other = await server.account();
    const foreign = await server.call('GET', `${Paths.getTests}?projectId=${other.projectId}`, {
      key: me.apiKey,
    });
    expect(foreign.statusCode).toBe(403);
  });
});

describe('GET /stats/get-test', () => {
  it("gives a test's runs newest first and its failure messages grouped", async () => {
    const list = await get<TestList>(Paths.getTests, { sort: 'flaky' });
    const id = list.tests.find((t) => t.name === 'flips')?.id as string;
    const detail = await get<TestDetail>(Paths.getTest, { test: id });
    expect(detail.test).toMatchObject({ id, suite: 'planted', name: 'flips', quarantined: false });
    const outcomes = sequence(FLIPS, 'P');
    expect(detail.runs.map((r) => (r.status === 'failed' ? 'F' : 'P'))).toEqual(
      [...outcomes].reverse(),
    );
    expect(detail.runs[0]).toMatchObject({ commit: 'c12', branch: 'main', build_id: 'b12' });
    expect(detail.messages).toEqual([
      { message: 'flips failed', count: 2, last_at: expect.any(String) },
    ]);
    const unknown = await server.call(
      'GET',
      `${Paths.getTest}?projectId=${me.projectId}&test=nope`,
      { key: me.apiKey },
    );
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: OwnError.testNotFound });
  });
});

describe('GET /stats/get-test-runs', () => {
  it('counts each run, its new failures (passed before on main) and flaky failures', async () => {
    const { runs } = await get<TestRunList>(Paths.getTestRuns, { limit: '200' });
    expect(runs.map((r) => r.build_id)).toEqual([
      'b12',
      'b11',
      'b10',
      'b9',
      'b8',
      'b7',
      'b6',
      'b5',
      'b4',
      'b3-rerun',
      'b3',
      'b2',
      'b1',
    ]);
    const byBuild = Object.fromEntries(runs.map((r) => [r.build_id, r]));
    // b7: broken fails for the first time (new), flips fails again (new, and flaky).
    expect(byBuild.b7).toMatchObject({ failed: 2, passed: 8, new_failures: 2, flaky_failures: 1 });
    // b8: broken still failing (not new), flips back to passing.
    expect(byBuild.b8).toMatchObject({ failed: 1, new_failures: 0, flaky_failures: 0 });
    expect(byBuild['b3-rerun']).toMatchObject({ failed: 1, new_failures: 1, flaky_failures: 1 });
    expect(byBuild.b4).toMatchObject({ passed_on_retry: 1, failed: 0 });
    expect(byBuild.b1?.duration_ms).toBe(5 * 10 + 10 + 10 + 10 + 5000 + 10);
  });
});
