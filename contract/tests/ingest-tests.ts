import * as z from 'zod/mini';
import { SpecError } from '../error-texts.js';
import { concerns, pickErrorText, requiredText, text } from '../fields.js';
import { Limits } from '../limits.js';
import { TestLimits } from './test-limits.js';

/** What one test case ended as in a run (after its retries, when it had some). */
export const TEST_STATUSES = ['passed', 'failed', 'error', 'skipped'] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];

/**
 * One test case of a run. Its identity is its suite, class and name, and its file when known
 * (normalised on the server, docs/tests.md). `attempts`: how many times it ran in this run (1
 * without retries); a case that passed after failed attempts is flaky.
 */
export const TestCase = z.strictObject({
  suite: text(TestLimits.suiteLength),
  classname: z.optional(text(TestLimits.classnameLength)),
  name: requiredText(TestLimits.nameLength),
  file: z.optional(text(TestLimits.fileLength)),
  line: z.optional(z.int().check(z.gte(1), z.lte(10_000_000))),
  duration_ms: z.number().check(z.gte(0), z.lte(TestLimits.durationMaxMs)),
  status: z.enum(TEST_STATUSES),
  message: z.optional(text(TestLimits.messageLength)),
  attempts: z.optional(z.int().check(z.gte(1), z.lte(TestLimits.attemptsMax))),
});
export type TestCase = z.infer<typeof TestCase>;

/**
 * POST /stats/ingest-tests: a batch of a run's test cases with the run's identity. A run is
 * (project, buildId, attempt); its batches may come in any order, each with its own
 * Idempotency-Key. The body may be sent with `Content-Encoding: gzip`.
 */
export const IngestTestsRequest = z.strictObject({
  projectId: requiredText(Limits.projectIdLength),
  buildId: requiredText(TestLimits.buildIdLength),
  attempt: z.optional(z.int().check(z.gte(1), z.lte(TestLimits.runAttemptMax))),
  commit: z.optional(requiredText(TestLimits.commitLength)),
  branch: z.optional(requiredText(TestLimits.branchLength)),
  pullRequest: z.optional(z.int().check(z.gte(1), z.lte(2_147_483_647))),
  eventId: z.optional(requiredText(TestLimits.eventIdLength)),
  cases: z.array(TestCase).check(z.minLength(1), z.maxLength(TestLimits.casesPerBatch)),
});
export type IngestTestsRequest = z.infer<typeof IngestTestsRequest>;

/** 200 body: the run the cases joined (its id in the tests' API) and how many were taken. */
export const IngestTestsResponse = z.object({
  message: z.string(),
  runId: z.string(),
  cases: z.number(),
});
export type IngestTestsResponse = z.infer<typeof IngestTestsResponse>;

export const TESTS_INGESTED = 'Tests ingested successfully.';

/** A bad project id says so first, as E7 and E8 do; anything else is the generic text. */
export const ingestTestsErrorText = pickErrorText(
  [SpecError.projectIdRequired, SpecError.invalidBody],
  (paths) => (concerns(paths, 'projectId') ? SpecError.projectIdRequired : SpecError.invalidBody),
);
