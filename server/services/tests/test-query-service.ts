import { encodeCursor } from '../../../contract/cursor.js';
import type {
  TestDetail,
  TestList,
  TestOrder,
  TestQuery,
  TestRow,
  TestRunList,
  TestRunsQuery,
  TestsQuery,
} from '../../../contract/tests/test-queries.js';
import { NotFound } from '../../domain/domain-errors.js';
import { runFailureKinds } from '../../domain/tests/run-failures.js';
import {
  analyseTests,
  defaultBranch,
  percentile,
  type TestSummary,
} from '../../domain/tests/test-analysis.js';
import { type DayFigures, dayOf, figuresOf, p50Of } from '../../domain/tests/test-days.js';
import { EVERY_BRANCH } from '../../domain/tests/test-recent.js';
import { isFailure, STATUS_NAME } from '../../domain/tests/test-status.js';
import type { Storage } from '../../storage/storage.js';
import type { StoredTest } from '../../storage/tests/test-repository.js';
import type { ProjectAccess } from '../project-access.js';
import { rangeOf } from '../stats-service.js';
import { resultsFor, type Scope } from './analysed-runs.js';
import { flakyScores, ranSince, reachesNewest } from './flaky-summary.js';

/** The newest runs an answer looks at, at most (the range's older runs are left out). */
export const MAX_RUNS = 1000;
/** A test's page shows its newest runs, at most. */
export const HISTORY = 100;

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));
const offsetOf = (cursor: number | undefined) => cursor ?? 0;
const next = (offset: number, limit: number, total: number) =>
  offset + limit < total ? encodeCursor(offset + limit) : null;

const info = (test: StoredTest) => ({
  id: test.key,
  suite: test.suite,
  classname: test.classname,
  name: test.name,
  file: test.file,
});

/** A test's line in the answers: its identity and what the analysis says of it. */
const rowOf = (
  test: StoredTest,
  s: TestSummary,
  quarantined: boolean,
  p50Previous: number | null = null,
): TestRow => ({
  ...info(test),
  runs: s.runs,
  passed: s.passed,
  failed: s.failed,
  skipped: s.skipped,
  passed_on_retry: s.passedOnRetry,
  failure_rate: s.failureRate,
  flaky: s.flaky,
  flaky_score: s.flakyScore,
  first_flaky_at: isoOrNull(s.firstFlakyAt),
  last_flaky_at: isoOrNull(s.lastFlakyAt),
  flaky_commits: s.flakyCommits,
  p50_ms: s.p50Ms,
  p95_ms: s.p95Ms,
  p50_previous_ms: p50Previous,
  quarantined,
});

/** localeCompare's order, one collator for all (20,000 names sort in a fraction of the time). */
const collate = new Intl.Collator().compare;
const byName = (a: StoredTest, b: StoredTest) =>
  collate(a.suite, b.suite) ||
  collate(a.classname ?? '', b.classname ?? '') ||
  collate(a.name, b.name) ||
  collate(a.key, b.key);

/** A column's value for `order` (null: no value, listed last either way). */
const COLUMN: Record<Exclude<TestOrder, 'name'>, (s: TestSummary) => number | null> = {
  runs: (s) => s.runs,
  failure_rate: (s) => s.failureRate,
  flaky_score: (s) => s.flakyScore,
  last_flaky_at: (s) => s.lastFlakyAt,
  p50: (s) => s.p50Ms,
  p95: (s) => s.p95Ms,
};

/** The columns a list is ordered by from the kept days (test-days.ts). */
const DAY_COLUMNS = new Set<TestOrder>(['runs', 'failure_rate', 'p50', 'p95']);

type Ranked = { test: StoredTest; summary: TestSummary; p50Previous?: number | null };

/** A test's line from its kept days (test-days.ts): the flaky columns filled in from its page's analysis. */
const dayLine = (f: DayFigures): TestSummary => ({
  testId: f.testId,
  runs: f.runs,
  passed: f.passed,
  failed: f.failed,
  skipped: f.skipped,
  passedOnRetry: f.retried,
  failureRate: f.failureRate,
  flaky: false,
  flakyScore: 0,
  firstFlakyAt: null,
  lastFlakyAt: null,
  flakyCommits: [],
  p50Ms: f.p50Ms,
  p95Ms: f.p95Ms,
});

/** The UTC days from the day of the first run to the day of the last (runs oldest first). */
function daysOf(runs: readonly { createdAt: number }[], before?: number): number[] {
  const first = runs[0];
  const last = runs.at(-1);
  if (first === undefined || last === undefined) return [];
  const days: number[] = [];
  const end = Math.min(dayOf(last.createdAt), before === undefined ? Infinity : before - 1);
  for (let day = dayOf(first.createdAt); day <= end; day++) days.push(day);
  return days;
}

/**
 * The order of get-tests' list: its sort's own (flaky by score, failing by failure rate then
 * failures, slowest by p95 then p50, name), or the column `order` names, `dir` (ascending for the
 * name, descending for the others by default) with tests without a value last; ties by name.
 */
function orderOf(query: Pick<TestsQuery, 'sort' | 'order' | 'dir'>) {
  const { order } = query;
  if (order === undefined || order === 'name') {
    return (a: Ranked, b: Ranked) => {
      const s = a.summary;
      const t = b.summary;
      const own =
        order === 'name'
          ? 0
          : query.sort === 'flaky'
            ? t.flakyScore - s.flakyScore
            : query.sort === 'failing'
              ? (t.failureRate ?? 0) - (s.failureRate ?? 0) || t.failed - s.failed
              : query.sort === 'slowest'
                ? (t.p95Ms ?? -1) - (s.p95Ms ?? -1) || (t.p50Ms ?? -1) - (s.p50Ms ?? -1)
                : 0;
      return own || (query.dir === 'desc' && order === 'name' ? -1 : 1) * byName(a.test, b.test);
    };
  }
  const value = COLUMN[order];
  const sign = query.dir === 'asc' ? 1 : -1;
  return (a: Ranked, b: Ranked) => {
    const x = value(a.summary);
    const y = value(b.summary);
    if (x === null || y === null) return x === y ? byName(a.test, b.test) : x === null ? 1 : -1;
    return sign * (x - y) || byName(a.test, b.test);
  };
}

export interface TestFigures {
  runs: number;
  tests: number;
  passRate: number | null;
  flaky: number;
  suiteMs: number | null;
}

/** The tests' answers: the list (flaky, failing, slowest, by name), one test, the runs. */
export function testQueryService(
  storage: Storage,
  access: ProjectAccess,
  /** Applies the project's queued upkeep of summaries and day rows (test-upkeep-worker.ts). */
  caughtUp: (projectId: string) => Promise<void> = async () => undefined,
) {
  const own = (accountId: string, projectId: string) =>
    access.assertOwn({ accountId, projectIds: null }, projectId);

  /**
   * The runs of a range and branch, oldest first, the flip branch, and whether they reach the
   * project's newest run (then the per-test summaries answer for them: flaky-summary.ts). Every
   * read of the summaries and day rows comes through here: the project's upkeep is applied first.
   */
  async function rangeRuns(
    projectId: string,
    query: { branch?: string | undefined; from?: number | undefined; to?: number | undefined },
  ) {
    await caughtUp(projectId);
    const { from, to } = rangeOf(query);
    const runs = await storage.tests.runs(projectId, { branch: query.branch, from, to }, MAX_RUNS);
    const branch = query.branch ?? defaultBranch(runs);
    const newest = await reachesNewest(storage, projectId, runs, query.branch);
    let ran: Promise<number[]> | undefined;
    /** The tests that ran in these runs (asked once: the headline and a list by name need them). */
    const ranTests = () => {
      ran ??=
        runs.length === 0
          ? Promise.resolve([])
          : newest
            ? ranSince(storage, projectId, runs, query.branch)
            : storage.tests.ranTests(
                projectId,
                runs.map((run) => run.id),
              );
      return ran;
    };
    return { projectId, from, to, runs, branch, newest, ranTests };
  }

  type Range = Awaited<ReturnType<typeof rangeRuns>>;

  /** The period of the same length just before a range (the headline's change, the trend). */
  const previousOf = (query: { branch?: string | undefined }, range: Range) => ({
    branch: query.branch,
    from: range.from - (range.to - range.from),
    to: range.from,
  });

  /**
   * A range's runs and the results of theirs that `scope` needs, analysed: `summaries` has a
   * line for each test of the scope that ran (analysed-runs.ts).
   */
  async function analysed(
    projectId: string,
    query: { branch?: string | undefined; from?: number | undefined; to?: number | undefined },
    scope: Scope,
  ) {
    return analysedOf(await rangeRuns(projectId, query), scope);
  }

  async function analysedOf(range: Range, scope: Scope) {
    const results = await resultsFor(storage, range.runs, scope);
    const summaries = analyseTests(range.runs, results, range.branch);
    return { ...range, results, summaries, scope };
  }

  /**
   * The flaky tests of a range with their scores: from the summaries when its runs reach the
   * newest (flaky-summary.ts), else from the analysis of the flagged tests' results.
   */
  async function flakyOf(range: Range): Promise<Map<number, number>> {
    if (range.newest) return flakyScores(storage, range.runs, range.branch);
    const { summaries } = await analysedOf(range, 'flagged');
    const scores = new Map<number, number>();
    for (const s of summaries.values()) if (s.flaky) scores.set(s.testId, s.flakyScore);
    return scores;
  }

  /**
   * How a list is made: the flaky list in its own order from the flaky tests' scores
   * (flakyOf) and its page's analysis; in another order from the flagged tests' analysis; the
   * failing list, and the slowest and by-name lists by runs, failure rate, p50 or p95, from the
   * kept days (dayListOf); a list in name order (`sort=name`, or `order=name`) by the names
   * first, then the analysis of its page's tests alone; the failing list by a flaky column from
   * the flagged tests' analysis; any other order ranks every test, so analyses every result.
   */
  const planOf = (
    query: Pick<TestsQuery, 'sort' | 'order'>,
  ): 'flaky' | 'flagged' | 'names' | 'days' | 'all' => {
    const { sort, order } = query;
    if (sort === 'flaky') return order === undefined ? 'flaky' : 'flagged';
    // The failing list, in its own order or by a column the days keep (the name included).
    if (sort === 'failing') {
      return order === undefined || order === 'name' || DAY_COLUMNS.has(order) ? 'days' : 'flagged';
    }
    if ((order ?? (sort === 'name' ? 'name' : undefined)) === 'name') return 'names';
    // The slowest list in its own order, and any list by a column the days keep.
    return order === undefined || DAY_COLUMNS.has(order) ? 'days' : 'all';
  };

  type Analysis = Awaited<ReturnType<typeof analysed>>;

  /**
   * The Tests view's headline figures over a range's runs: the passes and failures from the
   * runs' counts (made again from their results with each batch: the same sums as over every
   * result), the tests that ran, the flaky tests.
   */
  async function figures(
    range: Range,
    flaky: number,
    tests: () => Promise<number> = async () => (await range.ranTests()).length,
  ): Promise<TestFigures> {
    const { runs } = range;
    let passed = 0;
    let failed = 0;
    for (const run of runs) {
      passed += run.passed;
      failed += run.failed + run.errors;
    }
    const durations = runs.map((run) => run.durationMs).sort((a, b) => a - b);
    return {
      runs: runs.length,
      tests: await tests(),
      passRate: passed + failed === 0 ? null : passed / (passed + failed),
      flaky,
      suiteMs: percentile(durations, 0.5),
    };
  }

  /** The ids of the tests among `ids` that `q` finds (all of them without `q`). */
  async function searched(projectId: string, ids: number[], q: string | undefined) {
    if (q === undefined) return ids;
    const found = new Set(await storage.tests.searchTests(projectId, q));
    return ids.filter((id) => found.has(id));
  }

  /** A page of rows as get-tests answers it. */
  async function pageOf(
    query: TestsQuery,
    { from, to, runs, branch }: Range,
    page: Ranked[],
    total: number,
  ): Promise<TestList> {
    const quarantined = new Set(
      (await storage.tests.quarantined(query.projectId)).map((entry) => entry.testKey),
    );
    return {
      from: iso(from),
      to: iso(to),
      branch,
      runs: runs.length,
      tests: page.map(({ test, summary, p50Previous }) =>
        rowOf(test, summary, quarantined.has(test.key), p50Previous ?? null),
      ),
      nextCursor: next(offsetOf(query.cursor), query.limit, total),
    };
  }

  /** get-tests' page of `query` over an analysis of its range and branch. */
  async function listOf(query: TestsQuery, analysis: Analysis): Promise<TestList> {
    const { summaries } = analysis;
    const ids = await searched(query.projectId, [...summaries.keys()], query.q);
    const tests = new Map(
      (await storage.tests.tests(query.projectId, ids)).map((test) => [test.id, test]),
    );
    const rows = ids.flatMap((id) => {
      const test = tests.get(id);
      const summary = summaries.get(id) as TestSummary;
      return test ? [{ test, summary }] : [];
    });
    const chosen = rows.filter(({ summary }) =>
      query.sort === 'flaky' ? summary.flaky : query.sort === 'failing' ? summary.failed > 0 : true,
    );
    chosen.sort(orderOf(query));
    const offset = offsetOf(query.cursor);
    return pageOf(query, analysis, chosen.slice(offset, offset + query.limit), chosen.length);
  }

  /**
   * A list in name order: the tests that ran in the runs (one probe each through the index by
   * test), by name, then the page's tests analysed alone: its cost does not grow with the results.
   */
  async function namedListOf(query: TestsQuery, range: Range): Promise<TestList> {
    const ids = await searched(query.projectId, await range.ranTests(), query.q);
    const tests = (await storage.tests.tests(query.projectId, ids)).sort(byName);
    if (query.dir === 'desc') tests.reverse();
    const offset = offsetOf(query.cursor);
    return pageOf(
      query,
      range,
      await analysedPage(range, tests.slice(offset, offset + query.limit)),
      tests.length,
    );
  }

  /** A page's tests analysed alone, over every result of theirs in the range's runs. */
  async function analysedPage(range: Range, page: StoredTest[]): Promise<Ranked[]> {
    const results = await resultsFor(storage, range.runs, { testIds: page.map((t) => t.id) });
    const summaries = analyseTests(range.runs, results, range.branch);
    return page.flatMap((test) => {
      const summary = summaries.get(test.id);
      return summary ? [{ test, summary }] : [];
    });
  }

  /**
   * The flaky list in its own order (score, then name): the flaky tests and their scores
   * (flakyOf), their names for the order, then only the page's tests analysed from their
   * results for the other columns.
   */
  async function flakyListOf(query: TestsQuery, range: Range, scores: Map<number, number>) {
    const ids = await searched(query.projectId, [...scores.keys()], query.q);
    const tests = (await storage.tests.tests(query.projectId, ids)).sort(
      (a, b) => (scores.get(b.id) as number) - (scores.get(a.id) as number) || byName(a, b),
    );
    const offset = offsetOf(query.cursor);
    const page = await analysedPage(range, tests.slice(offset, offset + query.limit));
    // The score the list is ordered by (the same number as the page's analysis gives).
    for (const row of page) row.summary.flakyScore = scores.get(row.test.id) as number;
    return pageOf(query, range, page, tests.length);
  }

  /**
   * A list from the kept days (test-days.ts): every test with a day row in the range's days
   * (the failing list: those with a failure), by the figures of those days; the page's tests
   * analysed from their results for the flaky columns only. The slowest list's rows carry their
   * p50 over the previous period's days (the trend).
   */
  async function dayListOf(query: TestsQuery, range: Range): Promise<TestList> {
    const days = daysOf(range.runs);
    const branch = query.branch ?? EVERY_BRANCH;
    const sums =
      days.length === 0 ? [] : await storage.tests.daySums(query.projectId, branch, days);
    const lines = new Map<number, TestSummary>();
    for (const s of sums) {
      // The failing list: only the tests with a failure have their durations' bins read.
      if (query.sort === 'failing' && s.failed <= 0) continue;
      lines.set(s.testId, dayLine(figuresOf(s)));
    }
    const ids = await searched(query.projectId, [...lines.keys()], query.q);
    const rows: Ranked[] = (await storage.tests.tests(query.projectId, ids)).map((test) => ({
      test,
      summary: lines.get(test.id) as TestSummary,
    }));
    rows.sort(orderOf(query));
    const offset = offsetOf(query.cursor);
    const page = rows.slice(offset, offset + query.limit);
    const exact = new Map(
      (
        await analysedPage(
          range,
          page.map((row) => row.test),
        )
      ).map((row) => [row.test.id, row]),
    );
    for (const row of page) {
      const s = exact.get(row.test.id)?.summary;
      if (s === undefined) continue;
      Object.assign(row.summary, {
        flaky: s.flaky,
        flakyScore: s.flakyScore,
        firstFlakyAt: s.firstFlakyAt,
        lastFlakyAt: s.lastFlakyAt,
        flakyCommits: s.flakyCommits,
      });
    }
    if (query.sort === 'slowest' && page.length > 0) {
      const previous = await rangeRuns(query.projectId, previousOf(query, range));
      const before = daysOf(previous.runs, days[0]);
      const sumsBefore =
        before.length === 0
          ? []
          : await storage.tests.daySums(
              query.projectId,
              branch,
              before,
              page.map((row) => row.test.id),
            );
      const p50s = new Map(sumsBefore.map((s) => [s.testId, p50Of(s.bins)]));
      for (const row of page) row.p50Previous = p50s.get(row.test.id) ?? null;
    }
    return pageOf(query, range, page, rows.length);
  }

  /** get-tests' page of `query` over a range: the plan's way (planOf). */
  async function answerOf(query: TestsQuery, range: Range): Promise<TestList> {
    const plan = planOf(query);
    if (plan === 'names') return namedListOf(query, range);
    if (plan === 'flaky') return flakyListOf(query, range, await flakyOf(range));
    if (plan === 'days') return dayListOf(query, range);
    return listOf(query, await analysedOf(range, plan === 'all' ? 'all' : 'flagged'));
  }

  return {
    /**
     * How many tests were flaky over a range (get-tests' `sort=flaky` list, every page): for the
     * project page's headline, whose caller checked the project is the account's.
     */
    async flakyCount(
      projectId: string,
      query: { branch?: string | undefined; from: number; to: number },
    ): Promise<number> {
      return (await flakyOf(await rangeRuns(projectId, query))).size;
    },

    /**
     * The tests whose flaky score over the default range (the last 30 days, flips judged on the
     * default branch) is at least `score`: what automatic quarantine takes. A test the owner
     * released from quarantine (`releases`, by key) is judged on its runs after the release
     * alone: what made it flaky before no longer counts (docs/decisions.md). No ownership check:
     * the caller has made it.
     */
    async flakyAtLeast(
      projectId: string,
      score: number,
      releases: ReadonlyMap<string, number> = new Map(),
    ): Promise<{ key: string; score: number; releasedAt: number | undefined }[]> {
      const { runs, results, branch, summaries } = await analysed(projectId, {}, 'flagged');
      const scores = new Map<number, number>();
      for (const s of summaries.values()) {
        if (s.flaky && s.flakyScore >= score) scores.set(s.testId, s.flakyScore);
      }
      const released = new Map<number, number>();
      for (const [key, at] of releases) {
        const test = await storage.tests.findTest(projectId, key);
        if (test === undefined || !summaries.has(test.id)) continue;
        released.set(test.id, at);
        scores.delete(test.id);
      }
      if (released.size > 0) {
        const theirs = results.filter((r) => released.has(r.testId));
        for (const [testId, at] of released) {
          const after = runs.filter((run) => run.createdAt > at);
          const mine = theirs.filter((r) => r.testId === testId);
          const since = analyseTests(after, mine, branch).get(testId);
          if (since?.flaky && since.flakyScore >= score) scores.set(testId, since.flakyScore);
        }
      }
      if (scores.size === 0) return [];
      const tests = await storage.tests.tests(projectId, [...scores.keys()]);
      return tests.map((test) => ({
        key: test.key,
        score: scores.get(test.id) as number,
        releasedAt: released.get(test.id),
      }));
    },

    async list(accountId: string, query: TestsQuery): Promise<TestList> {
      await own(accountId, query.projectId);
      return answerOf(query, await rangeRuns(query.projectId, query));
    },

    /**
     * The Tests view: its headline (tests that ran, pass rate = passes / (passes + failures) over
     * every result, flaky tests, the median run's suite time; and the same over the period of
     * equal length just before, for the change) and its page of tests, the range analysed once
     * for both.
     */
    async view(
      accountId: string,
      query: TestsQuery & { from: number; to: number },
    ): Promise<{ headline: { current: TestFigures; previous: TestFigures }; list: TestList }> {
      await own(accountId, query.projectId);
      const current = await rangeRuns(query.projectId, query);
      const previous = await rangeRuns(query.projectId, previousOf(query, current));
      const flaky = await flakyOf(current);
      const plan = planOf(query);
      return {
        headline: {
          current: await figures(current, flaky.size),
          previous: await figures(
            previous,
            (await flakyOf(previous)).size,
            async () =>
              // The tests that ran in the previous period: from its kept days (test-days.ts).
              (
                await storage.tests.dayTests(
                  query.projectId,
                  query.branch ?? EVERY_BRANCH,
                  daysOf(previous.runs, daysOf(current.runs)[0]),
                )
              ).length,
          ),
        },
        list:
          plan === 'flaky'
            ? await flakyListOf(query, current, flaky)
            : await answerOf(query, current),
      };
    },

    /**
     * One test's line of get-tests over a range and branch (its flakiness, failure rate,
     * durations), as the list gives it; undefined when it did not run in those runs.
     */
    async summary(
      accountId: string,
      query: TestQuery & { branch?: string | undefined; from?: number; to?: number },
    ): Promise<TestRow | undefined> {
      await own(accountId, query.projectId);
      const test = await storage.tests.findTest(query.projectId, query.test);
      if (test === undefined) throw new NotFound('test');
      const { summaries } = await analysed(query.projectId, query, { testIds: [test.id] });
      const summary = summaries.get(test.id);
      if (summary === undefined) return undefined;
      const quarantined = (await storage.tests.quarantined(query.projectId)).some(
        (entry) => entry.testKey === test.key,
      );
      return rowOf(test, summary, quarantined);
    },

    async test(accountId: string, query: TestQuery): Promise<TestDetail> {
      await own(accountId, query.projectId);
      const test = await storage.tests.findTest(query.projectId, query.test);
      if (test === undefined) throw new NotFound('test');
      const history = await storage.tests.history(test.id, HISTORY);
      const runIds = [...new Set(history.map((r) => r.runId))];
      const runs = new Map(
        (await storage.tests.runsById(query.projectId, runIds)).map((run) => [run.id, run]),
      );
      const messageIds = [
        ...new Set(history.flatMap((r) => (r.messageId === null ? [] : [r.messageId]))),
      ];
      const texts =
        messageIds.length === 0
          ? new Map<number, string>()
          : await storage.tests.messages(messageIds);
      const groups = new Map<string, { message: string; count: number; last: number }>();
      for (const r of history) {
        const text = r.messageId === null ? undefined : texts.get(r.messageId);
        const run = runs.get(r.runId);
        if (text === undefined || run === undefined || !isFailure(r.status)) continue;
        const group = groups.get(text) ?? { message: text, count: 0, last: 0 };
        group.count += 1;
        group.last = Math.max(group.last, run.createdAt);
        groups.set(text, group);
      }
      const quarantined = (await storage.tests.quarantined(query.projectId)).some(
        (entry) => entry.testKey === test.key,
      );
      return {
        test: { ...info(test), line: test.line, first_seen: iso(test.firstSeen), quarantined },
        runs: history.flatMap((r) => {
          const run = runs.get(r.runId);
          if (run === undefined) return [];
          return [
            {
              run_id: run.key,
              build_id: run.buildId,
              attempt: run.attempt,
              commit: run.commit,
              branch: run.branch,
              pull_request: run.pullRequest,
              created_at: iso(run.createdAt),
              status: STATUS_NAME[r.status] ?? 'error',
              duration_ms: r.durationMs,
              attempts: r.attempts,
              message: r.messageId === null ? null : (texts.get(r.messageId) ?? null),
            },
          ];
        }),
        messages: [...groups.values()]
          .sort(
            (a, b) => b.count - a.count || b.last - a.last || a.message.localeCompare(b.message),
          )
          .map((g) => ({ message: g.message, count: g.count, last_at: iso(g.last) })),
      };
    },

    async runs(accountId: string, query: TestRunsQuery): Promise<TestRunList> {
      await own(accountId, query.projectId);
      // A run's new and flaky failures are of its failed tests, all flagged.
      const { runs, results, branch, summaries } = await analysed(
        query.projectId,
        query,
        'flagged',
      );
      const offset = offsetOf(query.cursor);
      const newestFirst = [...runs].reverse();
      const page = newestFirst.slice(offset, offset + query.limit);
      const kindsOf = runFailureKinds(runs, results, branch, summaries);
      return {
        runs: page.map((run) => {
          const kinds = kindsOf(run.id);
          return {
            id: run.key,
            build_id: run.buildId,
            attempt: run.attempt,
            commit: run.commit,
            branch: run.branch,
            pull_request: run.pullRequest,
            event_id: run.eventId,
            created_at: iso(run.createdAt),
            passed: run.passed,
            failed: run.failed,
            errors: run.errors,
            skipped: run.skipped,
            passed_on_retry: run.flaky,
            duration_ms: run.durationMs,
            new_failures: kinds.news.length,
            flaky_failures: kinds.flaky.length,
          };
        }),
        nextCursor: next(offset, query.limit, newestFirst.length),
      };
    },
  };
}

export type TestQueryService = ReturnType<typeof testQueryService>;
