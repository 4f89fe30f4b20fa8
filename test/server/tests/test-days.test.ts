import { describe, expect, it } from 'vitest';
import { Paths } from '../../../contract/paths.js';
import type { TestCase } from '../../../contract/tests/ingest-tests.js';
import type { TestList, TestRow } from '../../../contract/tests/test-queries.js';
import { pgMigrations } from '../../../server/storage/postgres/pg-migrations.js';
import { migrations as sqliteMigrations } from '../../../server/storage/sqlite/sqlite-migrations.js';
import { executeSql, selectRows } from '../../helpers/database.js';
import { storeTestRun } from '../../helpers/seed-tests.js';
import { eachTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { onPostgres } from '../../helpers/test-database.js';

/**
 * The failing and slowest lists, lists ordered by runs, failure rate, p50 or p95, the slowest
 * list's trend and the Tests view's previous period are read from the counts and duration
 * histograms kept per test, branch and UTC day (docs/tests.md, "Kept per day"). After runs over
 * two weeks (stored at chosen times through the storage) and runs sent through the API (two
 * batches with a test in both, a run naming its branch in its second batch, skips, zero and long
 * durations), each figure is the one the documented definition gives, computed here from what
 * was sent: the whole UTC days of the range's runs, nearest-rank percentiles of the 2 %
 * histogram bins (and within 2 % of the exact percentile). The migration's statement builds the
 * same rows from the results, and retention trims the days before the oldest run kept.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started), {
  RATE_LIMIT_INGEST_PER_MINUTE: '0',
  RATE_LIMIT_OTHER_PER_MINUTE: '0',
});

const DAY = 86_400_000;
const HOUR = 3_600_000;
type Status = TestCase['status'];
interface Result {
  status: Status;
  duration: number;
  attempts: number;
}
interface Run {
  at: number;
  branch: string;
  results: Map<string, Result>;
}

// mulberry32: the same history on every run of the test.
let seed = 2526;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Each test: its chances to fail, error and skip, and its durations' range (ms). */
const TESTS: Record<string, { fail: number; error: number; skip: number; ms: [number, number] }> = {
  steady: { fail: 0, error: 0, skip: 0, ms: [20, 40] },
  slow: { fail: 0.05, error: 0, skip: 0, ms: [2_000, 9_000] },
  'slower lately': { fail: 0, error: 0, skip: 0, ms: [100, 200] },
  'fails often': { fail: 0.4, error: 0.1, skip: 0.1, ms: [5, 600] },
  'fails rarely': { fail: 0.08, error: 0, skip: 0, ms: [1, 30] },
  instant: { fail: 0, error: 0, skip: 0, ms: [0, 1] },
  skippy: { fail: 0.1, error: 0, skip: 0.6, ms: [50, 5_000] },
  'old only': { fail: 0.3, error: 0, skip: 0, ms: [10, 20] },
};
const failedOf = (status: Status) => status === 'failed' || status === 'error';

function outcome(name: string, at: number): Result {
  const t = TESTS[name] as (typeof TESTS)[string];
  const roll = random();
  const status: Status =
    roll < t.fail
      ? 'failed'
      : roll < t.fail + t.error
        ? 'error'
        : roll < t.fail + t.error + t.skip
          ? 'skipped'
          : 'passed';
  const [lo, hi] = t.ms;
  // 'slower lately' takes three times as long in the last four days.
  const scale = name === 'slower lately' && at > Date.now() - 4 * DAY ? 3 : 1;
  const duration = Math.floor((lo + random() * (hi - lo)) * scale);
  return { status, duration, attempts: status === 'passed' && random() < 0.1 ? 2 : 1 };
}

const caseOf = (name: string, r: Result): TestCase => ({
  suite: 'days',
  name,
  duration_ms: r.duration,
  status: r.status,
  ...(r.attempts > 1 ? { attempts: r.attempts } : {}),
});

/** docs/tests.md's merge of one test's two results in a run: durations and attempts add up. */
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
  return { status, duration: a.duration + b.duration, attempts: a.attempts + b.attempts };
}

const sent: Run[] = [];
let builds = 0;
const today = Math.floor(Date.now() / DAY) * DAY;

/** Runs at chosen times over the last 14 days (three a day on two branches), through the storage. */
async function storeHistory(): Promise<void> {
  let n = 0;
  for (let d = 14; d >= 1; d--) {
    for (const hour of [2, 9, 20]) {
      const at = today - d * DAY + hour * HOUR + 123;
      const branch = hour === 9 ? 'dev' : 'main';
      const names = Object.keys(TESTS).filter((name) => name !== 'old only' || d > 8);
      const results = new Map(names.map((name) => [name, outcome(name, at)]));
      sent.push({ at, branch, results });
      n += 1;
      await storeTestRun(
        server,
        me.projectId,
        at,
        `s${n}`,
        [...results].map(([name, r]) => caseOf(name, r)),
        { commit: `c${n}`, branch },
      );
    }
  }
}

/**
 * Runs of today through POST /stats/ingest-tests, each in two batches: the second repeats one
 * test (merged: outcome, durations and attempts); run 2 names its branch in its second batch only.
 */
async function ingestToday(count: number): Promise<void> {
  const names = Object.keys(TESTS).filter((name) => name !== 'old only');
  for (let i = 0; i < count; i++) {
    const at = Date.now();
    const branch = i % 3 === 1 ? 'dev' : 'main';
    const first = new Map(names.map((name) => [name, outcome(name, at)]));
    const again = names[i % names.length] as string;
    const second = outcome(again, at);
    builds += 1;
    const results = new Map(first);
    results.set(again, merge(first.get(again) as Result, second));
    sent.push({ at, branch, results });
    for (const [cases, named] of [
      [[...first].map(([name, r]) => caseOf(name, r)), i !== 2],
      [[caseOf(again, second)], true],
    ] as const) {
      const res = await server.call('POST', Paths.ingestTests, {
        key: me.apiKey,
        body: {
          projectId: me.projectId,
          buildId: `t${builds}`,
          commit: `today${builds}`,
          ...(named ? { branch } : {}),
          cases,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  }
}

// The definition, computed here: 2 % bins of sketch.ts's kind, nearest rank over the bins.
const GAMMA = 1.02 / 0.98;
function fromBins(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const exact = sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] as number;
  // Bins ascend with the values, so the rank's bin is the bin of the value at that rank.
  const k = exact < 1 ? null : Math.ceil(Math.log(exact) / Math.log(GAMMA));
  const value = k === null ? 0 : Math.round((2 * GAMMA ** k) / (GAMMA + 1));
  expect(Math.abs(value - exact)).toBeLessThanOrEqual(0.02 * exact + 0.5);
  return value;
}

const dayOf = (ms: number) => Math.floor(ms / DAY);
const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** The runs a range looks at (oldest first) and the whole days from its first run's to its last's. */
function rangeOf(from: number, to: number, branch: string | undefined, before?: number) {
  const runs = sent.filter(
    (run) => run.at >= from && run.at < to && (branch === undefined || run.branch === branch),
  );
  const first = runs[0];
  const last = runs.at(-1);
  if (first === undefined || last === undefined) return { runs, days: new Set<number>() };
  const days = new Set<number>();
  const end = Math.min(dayOf(last.at), before === undefined ? Infinity : before - 1);
  for (let d = dayOf(first.at); d <= end; d++) days.add(d);
  return { runs, days };
}

interface Figures {
  name: string;
  runs: number;
  passed: number;
  failed: number;
  skipped: number;
  passedOnRetry: number;
  failureRate: number | null;
  p50: number | null;
  p95: number | null;
}

/** Each test's figures over every run (of the branch) on those days. */
function figures(days: Set<number>, branch: string | undefined): Map<string, Figures> {
  const out = new Map<string, Figures>();
  for (const name of Object.keys(TESTS)) {
    const mine = sent
      .filter((run) => days.has(dayOf(run.at)) && (branch === undefined || run.branch === branch))
      .flatMap((run) => run.results.get(name) ?? []);
    if (mine.length === 0) continue;
    const played = mine.filter((r) => r.status !== 'skipped');
    const failed = played.filter((r) => failedOf(r.status)).length;
    const passed = played.length - failed;
    const durations = played.map((r) => r.duration);
    out.set(name, {
      name,
      runs: mine.length,
      passed,
      failed,
      skipped: mine.length - played.length,
      passedOnRetry: played.filter((r) => r.status === 'passed' && r.attempts > 1).length,
      failureRate: played.length === 0 ? null : round3(failed / played.length),
      p50: fromBins(durations, 0.5),
      p95: fromBins(durations, 0.95),
    });
  }
  return out;
}

async function get(query: Record<string, string>): Promise<TestList> {
  const params = new URLSearchParams({ projectId: me.projectId, limit: '200', ...query });
  const res = await server.call('GET', `${Paths.getTests}?${params}`, { key: me.apiKey });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as TestList;
}

const line = (t: TestRow) => ({
  name: t.name,
  runs: t.runs,
  passed: t.passed,
  failed: t.failed,
  skipped: t.skipped,
  passedOnRetry: t.passed_on_retry,
  failureRate: t.failure_rate,
  p50: t.p50_ms,
  p95: t.p95_ms,
});

/** get-tests' failing, slowest and column-ordered lists and the Tests view over a range. */
async function compare(from: number, branch: string | undefined): Promise<void> {
  const to = Date.now() + 1;
  const { days } = rangeOf(from, to, branch);
  const want = figures(days, branch);
  const query = {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    ...(branch === undefined ? {} : { branch }),
  };
  const byName = (a: Figures, b: Figures) => a.name.localeCompare(b.name);

  const failing = [...want.values()]
    .filter((f) => f.failed > 0)
    .sort(
      (a, b) => (b.failureRate ?? 0) - (a.failureRate ?? 0) || b.failed - a.failed || byName(a, b),
    );
  expect((await get({ sort: 'failing', ...query })).tests.map(line)).toEqual(failing);

  const slowest = [...want.values()].sort(
    (a, b) => (b.p95 ?? -1) - (a.p95 ?? -1) || (b.p50 ?? -1) - (a.p50 ?? -1) || byName(a, b),
  );
  const slowList = await get({ sort: 'slowest', ...query });
  expect(slowList.tests.map(line)).toEqual(slowest);
  // The trend: each test's p50 over the previous period's days (before the range's first day).
  const previous = rangeOf(from - (to - from), from, branch, Math.min(...days));
  const before = figures(previous.days, branch);
  expect(slowList.tests.map((t) => [t.name, t.p50_previous_ms])).toEqual(
    slowest.map((f) => [f.name, before.get(f.name)?.p50 ?? null]),
  );

  // Any list by a column the days keep: failure rate ascending (no value last), runs.
  const byRate = [...want.values()].sort((a, b) =>
    a.failureRate === null || b.failureRate === null
      ? a.failureRate === b.failureRate
        ? byName(a, b)
        : a.failureRate === null
          ? 1
          : -1
      : a.failureRate - b.failureRate || byName(a, b),
  );
  expect(
    (await get({ sort: 'name', order: 'failure_rate', dir: 'asc', ...query })).tests.map(line),
  ).toEqual(byRate);
  const byP50 = [...want.values()].sort((a, b) => (b.p50 ?? -1) - (a.p50 ?? -1) || byName(a, b));
  expect((await get({ sort: 'slowest', order: 'p50', ...query })).tests.map((t) => t.name)).toEqual(
    byP50.map((f) => f.name),
  );

  // The Tests view: the previous period's tests that ran are those of its days.
  const view = await server.app.services.testQueries.view(me.accountId, {
    projectId: me.projectId,
    sort: 'slowest',
    limit: 50,
    from,
    to,
    ...(branch === undefined ? {} : { branch }),
  });
  expect(view.headline.previous.tests).toBe(before.size);
  expect(view.headline.previous.runs).toBe(previous.runs.length);
  expect(view.list.tests.map(line)).toEqual(slowest);
}

async function compareAll(): Promise<void> {
  // A range starting inside a day (its first day counted whole), one from midnight, the default.
  for (const from of [today - 5 * DAY + 10 * HOUR, today - 3 * DAY, Date.now() - 30 * DAY]) {
    for (const branch of [undefined, 'main', 'dev']) await compare(from, branch);
  }
}

const daysMigration = (onPostgres ? pgMigrations : sqliteMigrations).find(
  (m) => m.name === 'tests as data: counts and durations per test, branch and day',
);

async function dayRows(): Promise<string[]> {
  const rows = await selectRows(
    server.database,
    'SELECT project_id, branch, day, test_id, runs, passed, failed, skipped, retried, bins FROM test_days',
  );
  return rows.map((row) => JSON.stringify(Object.values(row).map(String))).sort();
}

describe('the counts and durations kept per test, branch and day', () => {
  it('give the documented figures, as the migration builds them, trimmed by retention', async () => {
    expect(dayOf(Date.now())).toBe(dayOf(today));
    await storeHistory();
    await ingestToday(6);
    await compareAll();

    // The migration's statement builds the same rows from the results.
    const kept = await dayRows();
    expect(kept.length).toBeGreaterThan(40);
    const sql = daysMigration?.sql ?? '';
    const build = sql.slice(sql.indexOf('INSERT INTO test_days')).trim().replace(/;$/, '');
    await executeSql(server.database, 'DELETE FROM test_days');
    await executeSql(server.database, build);
    expect(await dayRows()).toEqual(kept);

    // Retention: the runs older than 10 days go, and the days before the oldest kept run's.
    const retention = await server.call('POST', Paths.setRetention, {
      key: me.apiKey,
      body: { projectId: me.projectId, retentionDays: 10 },
    });
    expect(retention.statusCode, retention.body).toBe(200);
    await server.app.services.retention.sweep(Date.now());
    const kept10 = sent.filter((run) => run.at >= Date.now() - 10 * DAY);
    const oldest = Math.min(...kept10.map((run) => dayOf(run.at)));
    const left = await selectRows(server.database, 'SELECT DISTINCT day FROM test_days');
    expect(Math.min(...left.map((row) => Number(row.day)))).toBe(oldest);
    sent.splice(0, sent.length - kept10.length);
    // A day partly swept keeps its row whole; the ranges compared (and their previous periods)
    // start after it.
    await ingestToday(2);
    for (const branch of [undefined, 'main', 'dev']) await compare(today - 2 * DAY, branch);
  });
});
