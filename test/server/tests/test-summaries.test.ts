import { describe, expect, it } from 'vitest';
import { Paths } from '../../../contract/paths.js';
import type { TestCase } from '../../../contract/tests/ingest-tests.js';
import type { TestList } from '../../../contract/tests/test-queries.js';
import { storeTestRun } from '../../helpers/seed-tests.js';
import { eachTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/**
 * The flaky list, the tests that ran and the Tests view's counts are read from the per-test
 * summaries kept by each stored batch (docs/tests.md, "The per-test summary"). After a sequence
 * of ingests (runs in two batches with a test in both, a run naming its branch in its second
 * batch, re-runs of a commit, skips), a quarantine and a retention delete, each answer is the one
 * docs/tests.md's definitions give, computed here from what was sent.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started), {
  RATE_LIMIT_INGEST_PER_MINUTE: '0',
  RATE_LIMIT_OTHER_PER_MINUTE: '0',
});

const DAY = 86_400_000;
type Status = TestCase['status'];
interface Result {
  status: Status;
  attempts: number;
}
interface Run {
  build: string;
  commit: string;
  branch: string;
  old: boolean;
  results: Map<string, Result>;
}

// mulberry32: the same history on every run of the test.
let seed = 2525;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Each test's chances in a run: failed, errored, skipped. */
const TESTS: Record<string, [number, number, number]> = {
  steady: [0, 0, 0],
  'fails often': [0.35, 0.1, 0.1],
  'fails rarely': [0.07, 0, 0],
  skippy: [0.15, 0, 0.5],
  'dev only breaks': [0, 0, 0],
};
const NAMES = Object.keys(TESTS);
const failedOf = (status: Status) => status === 'failed' || status === 'error';

/** docs/tests.md's merge of one test's two results in a run. */
function merge(a: Result, b: Result): Result {
  const status: Status =
    a.status === b.status
      ? a.status
      : a.status === 'skipped'
        ? b.status
        : b.status === 'skipped'
          ? a.status
          : a.status === 'passed' || b.status === 'passed'
            ? 'passed'
            : 'failed';
  return { status, attempts: a.attempts + b.attempts };
}

const sent: Run[] = [];
let builds = 0;
const caseOf = (name: string, r: Result): TestCase => ({
  suite: 'summaries',
  name,
  duration_ms: 5,
  status: r.status,
  ...(r.attempts > 1 ? { attempts: r.attempts } : {}),
});

function outcome(name: string, branch: string): Result {
  const [fail, error, skip] = TESTS[name] ?? [0.2, 0, 0];
  const roll = random();
  const status: Status =
    name === 'dev only breaks' && branch === 'dev' && random() < 0.5
      ? 'failed'
      : roll < fail
        ? 'failed'
        : roll < fail + error
          ? 'error'
          : roll < fail + error + skip
            ? 'skipped'
            : 'passed';
  return { status, attempts: 1 };
}

/** Old runs (40 days back), stored as a batch is, through the storage. */
async function storeOld(count: number): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const build = `old${i}`;
    const results = new Map<string, Result>();
    for (const name of [...NAMES, 'gone with the old runs']) {
      results.set(
        name,
        name === 'fails often' && i === 1
          ? { status: 'failed', attempts: 1 }
          : outcome(name, 'main'),
      );
    }
    const run: Run = { build, commit: `o${i}`, branch: 'main', old: true, results };
    sent.push(run);
    await storeTestRun(
      server,
      me.projectId,
      now - (40 - i) * DAY,
      build,
      [...results].map(([name, r]) => caseOf(name, r)),
      { commit: run.commit, branch: run.branch },
    );
  }
}

/**
 * Runs through POST /stats/ingest-tests, each in two batches: the second repeats one test (a
 * retry: failed then passed is a pass on retry); one run names its branch only in its second
 * batch; one run in four re-runs the commit before.
 */
async function ingest(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const n = sent.length;
    const branch = random() < 0.65 ? 'main' : 'dev';
    const commit = n > 0 && random() < 0.25 ? (sent[n - 1] as Run).commit : `c${n}`;
    builds += 1;
    const build = `b${builds}`;
    const first = new Map(NAMES.map((name) => [name, outcome(name, branch)]));
    const again = NAMES[Math.floor(random() * NAMES.length)] as string;
    const second = outcome(again, branch);
    const results = new Map(first);
    results.set(again, merge(first.get(again) as Result, second));
    sent.push({ build, commit, branch, old: false, results });
    const unnamed = i === 3;
    for (const [cases, named] of [
      [[...first].map(([name, r]) => caseOf(name, r)), !unnamed],
      [[caseOf(again, second)], true],
    ] as const) {
      const res = await server.call('POST', Paths.ingestTests, {
        key: me.apiKey,
        body: {
          projectId: me.projectId,
          buildId: build,
          commit,
          ...(named ? { branch } : {}),
          cases,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  }
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** The answers of docs/tests.md over `runs` (oldest first): flaky tests with scores, tests that ran. */
function expected(runs: readonly Run[], branch: string | undefined) {
  const counts = new Map<string, number>();
  for (const run of runs) counts.set(run.branch, (counts.get(run.branch) ?? 0) + 1);
  const flipBranch =
    branch ?? [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  const ran = new Set<string>();
  const flaky = new Map<string, number>();
  for (const name of [...NAMES, 'gone with the old runs']) {
    const mine = runs.flatMap((run) => {
      const r = run.results.get(name);
      return r ? [{ ...r, run }] : [];
    });
    if (mine.length > 0) ran.add(name);
    const played = mine.filter((r) => r.status !== 'skipped');
    let evident = played.some((r) => r.status === 'passed' && r.attempts > 1);
    for (const commit of new Set(played.map((r) => r.run.commit))) {
      const at = played.filter((r) => r.run.commit === commit);
      if (at.some((r) => failedOf(r.status)) && at.some((r) => !failedOf(r.status))) evident = true;
    }
    const onBranch = played.filter((r) => r.run.branch === flipBranch).slice(-30);
    const window = onBranch.length > 0 ? onBranch : played.slice(-30);
    if (/F.*P.*F/.test(onBranch.map((r) => (failedOf(r.status) ? 'F' : 'P')).join(''))) {
      evident = true;
    }
    if (!evident) continue;
    let weighted = 0;
    let weights = 0;
    for (let k = 0; k < window.length; k++) {
      const r = window[window.length - 1 - k] as (typeof window)[number];
      const older = window[window.length - 2 - k];
      const flip = older !== undefined && failedOf(older.status) !== failedOf(r.status);
      const bad = failedOf(r.status) || r.attempts > 1 ? 1 : 0;
      weighted += 0.5 ** (k / 10) * (bad + (flip ? 1 : 0));
      weights += 0.5 ** (k / 10);
    }
    flaky.set(name, round3(weighted / weights));
  }
  return { flipBranch, ran: [...ran].sort(), flaky };
}

async function get(query: Record<string, string>): Promise<TestList> {
  const params = new URLSearchParams({ projectId: me.projectId, limit: '200', ...query });
  const res = await server.call('GET', `${Paths.getTests}?${params}`, { key: me.apiKey });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as TestList;
}

/** get-tests and the Tests view over a range, against the definitions over its runs. */
async function compare(from: number | undefined, branch: string | undefined): Promise<void> {
  const runs = sent.filter(
    (run) =>
      (from === undefined ? !run.old : true) && (branch === undefined || run.branch === branch),
  );
  const want = expected(runs, branch);
  const query = {
    ...(from === undefined ? {} : { from: new Date(from).toISOString() }),
    ...(branch === undefined ? {} : { branch }),
  };
  const flakyList = await get({ sort: 'flaky', ...query });
  expect(flakyList.runs).toBe(runs.length);
  expect(flakyList.branch).toBe(want.flipBranch);
  const got = flakyList.tests.map((t) => [t.name, t.flaky_score]);
  const order = [...want.flaky].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  expect(got).toEqual(order);
  for (const t of flakyList.tests) expect(t.flaky).toBe(true);
  const named = await get({ sort: 'name', ...query });
  expect(named.tests.map((t) => t.name).sort()).toEqual(want.ran);
  // The Tests view: its headline's tests and flaky tests, its flaky tab.
  const to = Date.now() + 1;
  const view = await server.app.services.testQueries.view(me.accountId, {
    projectId: me.projectId,
    sort: 'flaky',
    limit: 50,
    from: from ?? to - 30 * DAY,
    to,
    ...(branch === undefined ? {} : { branch }),
  });
  expect(view.headline.current.tests).toBe(want.ran.length);
  expect(view.headline.current.flaky).toBe(want.flaky.size);
  expect(view.list.tests.map((t) => [t.name, t.flaky_score])).toEqual(order);
}

async function compareAll(): Promise<void> {
  for (const from of [undefined, Date.now() - 50 * DAY]) {
    for (const branch of [undefined, 'main', 'dev']) await compare(from, branch);
  }
}

describe('the per-test summaries', () => {
  it('give the documented answers after ingests, a quarantine and a retention delete', async () => {
    await storeOld(3);
    await ingest(12);
    await compareAll();
    await ingest(30);
    await compareAll();

    // A quarantine changes no answer but the test's flag.
    const flakyOne = (await get({ sort: 'flaky' })).tests[0];
    expect(flakyOne).toBeDefined();
    const quarantined = await server.call('POST', Paths.quarantineTest, {
      key: me.apiKey,
      body: { projectId: me.projectId, test: flakyOne?.id, reason: 'flaky' },
    });
    expect(quarantined.statusCode, quarantined.body).toBe(200);
    await compareAll();
    expect(
      (await get({ sort: 'flaky' })).tests.find((t) => t.id === flakyOne?.id)?.quarantined,
    ).toBe(true);

    // Retention deletes the old runs: their results leave every answer.
    const retention = await server.call('POST', Paths.setRetention, {
      key: me.apiKey,
      body: { projectId: me.projectId, retentionDays: 30 },
    });
    expect(retention.statusCode, retention.body).toBe(200);
    expect((await server.app.services.retention.sweep(Date.now())).testRuns).toBe(3);
    sent.splice(0, 3);
    await compareAll();
    await ingest(5);
    await compareAll();
  });
});
