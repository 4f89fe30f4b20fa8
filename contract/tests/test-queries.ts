import * as z from 'zod/mini';
import { requiredText } from '../fields.js';
import { Limits } from '../limits.js';
import { Cursor, Instant, PageSize, rangeOrdered } from '../stats-queries.js';
import { TestLimits } from './test-limits.js';

const range = {
  projectId: requiredText(Limits.projectIdLength),
  branch: z.optional(requiredText(TestLimits.branchLength)),
  from: z.optional(Instant),
  to: z.optional(Instant),
  limit: z._default(PageSize, Limits.pageSizeDefault),
  cursor: z.optional(Cursor),
};
const ORDER = { path: ['to'], message: 'to must be after from' };

export const TEST_SORTS = ['flaky', 'failing', 'slowest', 'name'] as const;
/**
 * The columns get-tests' list can be ordered by, instead of its sort's own order: the sort still
 * chooses the tests (flaky ones, ones with a failure, or all).
 */
export const TEST_ORDERS = [
  'name',
  'runs',
  'failure_rate',
  'flaky_score',
  'last_flaky_at',
  'p50',
  'p95',
] as const;
export type TestOrder = (typeof TEST_ORDERS)[number];

/** GET /stats/get-tests: the project's tests over a range and branch, sorted, paged. */
export const TestsQuery = z
  .object({
    ...range,
    sort: z._default(z.enum(TEST_SORTS), 'flaky'),
    order: z.optional(z.enum(TEST_ORDERS)),
    dir: z.optional(z.enum(['asc', 'desc'])),
    q: z.optional(requiredText(TestLimits.queryLength)),
  })
  .check(z.refine(rangeOrdered, ORDER));
export type TestsQuery = z.infer<typeof TestsQuery>;

/** GET /stats/get-test: one test (its id from get-tests) and its recent runs. */
export const TestQuery = z.object({
  projectId: requiredText(Limits.projectIdLength),
  test: requiredText(64),
});
export type TestQuery = z.infer<typeof TestQuery>;

/** GET /stats/get-test-runs: the project's runs of tests, newest first, paged. */
export const TestRunsQuery = z.object(range).check(z.refine(rangeOrdered, ORDER));
export type TestRunsQuery = z.infer<typeof TestRunsQuery>;

export interface TestInfo {
  id: string;
  suite: string;
  classname: string | null;
  name: string;
  file: string | null;
}

export interface TestRow extends TestInfo {
  runs: number;
  passed: number;
  failed: number;
  skipped: number;
  passed_on_retry: number;
  failure_rate: number | null;
  flaky: boolean;
  flaky_score: number;
  first_flaky_at: string | null;
  last_flaky_at: string | null;
  flaky_commits: string[];
  p50_ms: number | null;
  p95_ms: number | null;
  /**
   * The p50 over the period of the same length just before (the slowest list's trend, from the
   * kept days); null in the other lists, or when the test did not run then.
   */
  p50_previous_ms: number | null;
  quarantined: boolean;
}

export interface TestList {
  from: string;
  to: string;
  /** The branch flips are judged on: the one asked, else the one most runs are on. */
  branch: string | null;
  runs: number;
  tests: TestRow[];
  nextCursor: string | null;
}

export interface TestRunEntry {
  run_id: string;
  build_id: string;
  attempt: number;
  commit: string | null;
  branch: string | null;
  pull_request: number | null;
  created_at: string;
  status: 'passed' | 'failed' | 'error' | 'skipped';
  duration_ms: number;
  attempts: number;
  message: string | null;
}

export interface TestDetail {
  test: TestInfo & { line: number | null; first_seen: string; quarantined: boolean };
  /** Newest first, at most 100. */
  runs: TestRunEntry[];
  /** Failure messages of those runs by first line, most frequent first. */
  messages: { message: string; count: number; last_at: string }[];
}

export interface TestRunSummary {
  id: string;
  build_id: string;
  attempt: number;
  commit: string | null;
  branch: string | null;
  pull_request: number | null;
  event_id: string | null;
  created_at: string;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  passed_on_retry: number;
  duration_ms: number;
  /** Tests that failed here and passed in the latest run before on the default branch. */
  new_failures: number;
  /** Tests that failed here and are flaky over the range. */
  flaky_failures: number;
}

export interface TestRunList {
  runs: TestRunSummary[];
  nextCursor: string | null;
}
