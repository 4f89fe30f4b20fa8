import { describe, expect, it } from 'vitest';
import { Paths } from '../../../contract/paths.js';
import type { TestCase } from '../../../contract/tests/ingest-tests.js';
import type { TestList, TestRow, TestRunList } from '../../../contract/tests/test-queries.js';
import { eachTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/**
 * The flaky and failing lists analyse only the tests flagged in the range's runs (a failure, an
 * error or a pass on retry: docs/decisions.md). Over a generated history on two branches, with
 * re-runs of commits, retries and skips, read, ingest more, read again: each time every line is
 * what docs/tests.md's definitions give, computed here on their own from what was sent.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started), {
  RATE_LIMIT_INGEST_PER_MINUTE: '0',
  RATE_LIMIT_OTHER_PER_MINUTE: '0',
});

type Status = 'passed' | 'failed' | 'error' | 'skipped';
interface Sent {
  build: string;
  commit: string;
  branch: string;
  results: Map<string, { status: Status; attempts: number; duration: number }>;
}

/** Each test's chances in a run: failed, errored, passed on retry, skipped. */
const TESTS: Record<string, [number, number, number, number]> = {
  steady: [0, 0, 0, 0],
  'retry only': [0, 0, 0.25, 0],
  'fails often': [0.4, 0.1, 0, 0.1],
  'fails rarely': [0.08, 0, 0, 0],
  'broken on dev': [0, 0, 0, 0],
  skippy: [0.15, 0, 0.1, 0.4],
};

// A small deterministic generator (mulberry32): the same history on every run of the test.
let seed = 25;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const sent: Sent[] = [];

async function ingestRuns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const n = sent.length;
    const branch = random() < 0.7 ? 'main' : 'dev';
    // One run in four runs the commit before again (a re-run).
    const commit = n > 0 && random() < 0.25 ? (sent[n - 1] as Sent).commit : `c${n}`;
    const results: Sent['results'] = new Map();
    for (const [name, [fail, error, retry, skip]] of Object.entries(TESTS)) {
      const roll = random();
      const status: Status =
        name === 'broken on dev' && branch === 'dev'
          ? 'failed'
          : roll < fail
            ? 'failed'
            : roll < fail + error
              ? 'error'
              : roll < fail + error + skip
                ? 'skipped'
                : 'passed';
      const attempts = status === 'passed' && random() < retry ? 2 : 1;
      results.set(name, { status, attempts, duration: 1 + Math.floor(random() * 500) });
    }
    sent.push({ build: `b${n}`, commit, branch, results });
    const cases: TestCase[] = [...results].map(([name, r]) => ({
      suite: 'generated',
      name,
      duration_ms: r.duration,
      status: r.status,
      ...(r.attempts > 1 ? { attempts: r.attempts } : {}),
      ...(r.status === 'failed' || r.status === 'error' ? { message: `${name} broke` } : {}),
    }));
    const res = await server.call('POST', Paths.ingestTests, {
      key: me.apiKey,
      body: { projectId: me.projectId, buildId: `b${n}`, commit, branch, cases },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const failedOf = (status: Status) => status === 'failed' || status === 'error';

/** docs/tests.md's "Answers", for every test, over every run sent (all in the default range). */
function expected(times: Map<string, string>) {
  const counts = new Map<string, number>();
  for (const run of sent) counts.set(run.branch, (counts.get(run.branch) ?? 0) + 1);
  const flipBranch = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  const rows = new Map<string, Partial<TestRow>>();
  for (const name of Object.keys(TESTS)) {
    const mine = sent.flatMap((run, order) => {
      const r = run.results.get(name);
      return r ? [{ ...r, run, order }] : [];
    });
    const played = mine.filter((r) => r.status !== 'skipped');
    const passed = played.filter((r) => !failedOf(r.status)).length;
    const failed = played.length - passed;
    const retried = played.filter((r) => r.status === 'passed' && r.attempts > 1);
    const evidence = new Set(retried.map((r) => r.order));
    for (const commit of new Set(played.map((r) => r.run.commit))) {
      const at = played.filter((r) => r.run.commit === commit);
      if (at.some((r) => failedOf(r.status)) && at.some((r) => !failedOf(r.status))) {
        for (const r of at) evidence.add(r.order);
      }
    }
    const onBranch = played.filter((r) => r.run.branch === flipBranch).slice(-30);
    const window = onBranch.length > 0 ? onBranch : played.slice(-30);
    // (3): a failure, later a pass, later a failure, among the branch's last 30.
    const pattern = onBranch.map((r) => (failedOf(r.status) ? 'F' : 'P')).join('');
    const flips = /F.*P.*F/.test(pattern);
    let weighted = 0;
    let weights = 0;
    for (let k = 0; k < window.length; k++) {
      const r = window[window.length - 1 - k] as (typeof window)[number];
      const older = window[window.length - 2 - k];
      const flip = older !== undefined && failedOf(older.status) !== failedOf(r.status);
      if (flips && flip) evidence.add(r.order);
      const bad = failedOf(r.status) || r.attempts > 1 ? 1 : 0;
      weighted += 0.5 ** (k / 10) * (bad + (flip ? 1 : 0));
      weights += 0.5 ** (k / 10);
    }
    const flaky = evidence.size > 0;
    const newestFirst = [...evidence].sort((a, b) => b - a);
    const durations = played.map((r) => r.duration).sort((a, b) => a - b);
    const rank = (q: number) => durations[Math.max(0, Math.ceil(q * durations.length) - 1)] ?? null;
    rows.set(name, {
      name,
      runs: mine.length,
      passed,
      failed,
      skipped: mine.length - played.length,
      passed_on_retry: retried.length,
      failure_rate: played.length === 0 ? null : round3(failed / played.length),
      flaky,
      flaky_score: flaky ? round3(weighted / weights) : 0,
      first_flaky_at: flaky ? (times.get(`b${newestFirst.at(-1)}`) as string) : null,
      last_flaky_at: flaky ? (times.get(`b${newestFirst[0]}`) as string) : null,
      flaky_commits: [...new Set(newestFirst.map((order) => (sent[order] as Sent).commit))].slice(
        0,
        10,
      ),
      p50_ms: rank(0.5),
      p95_ms: rank(0.95),
      p50_previous_ms: null,
    });
  }
  return { flipBranch, rows };
}

const GAMMA = 1.02 / 0.98;
const binned = (v: number | null) =>
  v === null
    ? null
    : v < 1
      ? 0
      : Math.round((2 * GAMMA ** Math.ceil(Math.log(v) / Math.log(GAMMA))) / (GAMMA + 1));

async function get<T>(path: string, query: Record<string, string>): Promise<T> {
  const params = new URLSearchParams({ projectId: me.projectId, ...query });
  const res = await server.call('GET', `${path}?${params}`, { key: me.apiKey });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as T;
}

/** The flaky and failing lists, and each run's flaky failures, against the definitions. */
async function readAndCompare(): Promise<void> {
  const { runs } = await get<TestRunList>(Paths.getTestRuns, { limit: '200' });
  expect(runs).toHaveLength(sent.length);
  const times = new Map(runs.map((run) => [run.build_id, run.created_at]));
  const { flipBranch, rows } = expected(times);
  const want = (keep: (row: Partial<TestRow>) => boolean) =>
    [...rows.values()]
      .filter(keep)
      .sort((a, b) => (a.name as string).localeCompare(b.name as string));
  const strip = (tests: TestRow[]) =>
    tests
      .map(({ id: _id, suite: _s, classname: _c, file: _f, quarantined: _q, ...rest }) => rest)
      .sort((a, b) => a.name.localeCompare(b.name));

  const flaky = await get<TestList>(Paths.getTests, { sort: 'flaky', limit: '200' });
  expect(flaky.runs).toBe(sent.length);
  expect(flaky.branch).toBe(flipBranch);
  expect(strip(flaky.tests)).toEqual(want((row) => row.flaky === true));
  const scores = flaky.tests.map((t) => t.flaky_score);
  expect(scores).toEqual([...scores].sort((a, b) => b - a));

  // The failing list's figures are the kept days' (all of this history's runs are of today):
  // its percentiles the value that stands for the 2 % bin of the nearest-rank value, rounded.
  const failing = await get<TestList>(Paths.getTests, { sort: 'failing', limit: '200' });
  expect(strip(failing.tests)).toEqual(
    want((row) => (row.failed as number) > 0).map((row) => ({
      ...row,
      p50_ms: binned(row.p50_ms as number | null),
      p95_ms: binned(row.p95_ms as number | null),
    })),
  );
  const rates = failing.tests.map((t) => t.failure_rate as number);
  expect(rates).toEqual([...rates].sort((a, b) => b - a));

  // One test's line (the Tests page of a test) is its line in the full list.
  const all = await get<TestList>(Paths.getTests, { sort: 'name', limit: '200' });
  expect(strip(all.tests)).toEqual(want(() => true));

  // A run's flaky failures: its failed tests that are flaky over the range.
  for (const run of runs) {
    const order = Number(run.build_id.slice(1));
    const mine = [...(sent[order] as Sent).results].filter(
      ([name, r]) => failedOf(r.status) && rows.get(name)?.flaky,
    );
    expect(run.flaky_failures, run.build_id).toBe(mine.length);
  }
}

describe('the flaky and failing lists over a growing history', () => {
  it('give the documented answers after each ingest, the new runs included at once', async () => {
    await ingestRuns(14);
    await readAndCompare();
    await ingestRuns(26);
    await readAndCompare();
    // The planted kinds are all there, so each condition of the definition was compared.
    const flaky = await get<TestList>(Paths.getTests, { sort: 'flaky', limit: '200' });
    const names = flaky.tests.map((t) => t.name);
    expect(names).toContain('retry only');
    expect(names).toContain('fails often');
    expect(names).not.toContain('steady');
  });
});
