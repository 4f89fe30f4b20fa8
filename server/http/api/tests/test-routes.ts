import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { OwnError } from '../../../../contract/error-texts.js';
import { Areas, Paths } from '../../../../contract/paths.js';
import {
  IngestTestsRequest,
  ingestTestsErrorText,
} from '../../../../contract/tests/ingest-tests.js';
import { TestLimits } from '../../../../contract/tests/test-limits.js';
import {
  type TestDetail,
  type TestList,
  TestQuery,
  type TestRunList,
  TestRunsQuery,
  TestsQuery,
} from '../../../../contract/tests/test-queries.js';
import { Forbidden, Invalid, NotFound } from '../../../domain/domain-errors.js';
import { within } from '../area.js';
import { AT } from '../examples.js';
import { answer, checkIdempotencyKey, idempotencyKeyOf as keyOf } from '../idempotency-header.js';
import { readRoute } from '../read-route.js';
import { ACCEPTED_ENCODINGS, gunzipBody } from './gzip-body.js';

const FOREIGN_PROJECT = new Forbidden('project');

/** Tests as data: the ingest of test cases (docs/tests.md). */
export const testRoutes: FastifyPluginAsyncZod = async (app) => {
  const { testIngest, testQueries } = app.services;
  // Every request tells the tests' pacing while it is served (tests-pacing.ts), tests batches
  // apart: on the Node server itself, before any of Fastify's hooks, for two clock reads and a
  // listener a request.
  const batches = `${app.config.basePath}${Paths.ingestTests}`;
  const { pacing } = testIngest;
  const ended = () => pacing.ended();
  const batchEnded = () => pacing.ended(true);
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const batch = request.url?.startsWith(batches) === true;
    pacing.began(batch);
    // `on`, not `once`, which wraps its listener anew each time: Node emits a response's 'close'
    // once (emitCloseNT checks `_closed`).
    response.on('close', batch ? batchEnded : ended);
  });
  // When each batch began to be read: its read, parse and validation count in the pacing.
  const began = new WeakMap<object, number>();

  app.post(
    within(Areas.stats, Paths.ingestTests),
    {
      schema: {
        summary:
          "Add a batch of a run's test cases (at most 5,000; the body may be gzip-compressed)",
        body: IngestTestsRequest,
      },
      // A batch of 5,000 cases with long names is larger than other bodies; an operator's larger
      // BODY_LIMIT still applies.
      bodyLimit: Math.max(app.config.bodyLimit, TestLimits.bodyBytes),
      config: {
        invalid: ingestTestsErrorText,
        ingestKeys: true,
        docs: {
          success: {
            example: {
              message: 'Tests ingested successfully.',
              runId: 'q0vB3kqYt1xXJ2Ck',
              cases: 2,
            },
          },
          throws: [FOREIGN_PROJECT],
          answers: { 415: [OwnError.unsupportedEncoding] },
        },
      },
      onRequest: async (request) => {
        began.set(request, performance.now());
      },
      preParsing: gunzipBody,
      preValidation: checkIdempotencyKey,
    },
    async (request, reply) => {
      // Tells the reporter it may compress the next batches (RFC 7694).
      reply.header('accept-encoding', ACCEPTED_ENCODINGS);
      const prepared = performance.now() - (began.get(request) ?? performance.now());
      return answer(
        reply,
        await testIngest.ingest(request.account, request.body, keyOf(request.headers), prepared),
      );
    },
  );

  app.get(
    within(Areas.stats, Paths.getTests),
    readRoute(
      "A project's tests over a range and branch: flaky, failing, slowest or by name",
      TestsQuery,
      {
        from: AT,
        to: AT,
        branch: 'main',
        runs: 120,
        tests: [
          {
            id: 'q0vB3kqYt1xXJ2Ck',
            suite: 'cart',
            classname: 'com.example.CartTest',
            name: 'appliesDiscount',
            file: null,
            runs: 120,
            passed: 114,
            failed: 6,
            skipped: 0,
            passed_on_retry: 3,
            failure_rate: 0.05,
            flaky: true,
            flaky_score: 0.213,
            first_flaky_at: AT,
            last_flaky_at: AT,
            flaky_commits: ['9f2c1e7'],
            p50_ms: 410,
            p95_ms: 890,
            p50_previous_ms: null,
            quarantined: false,
          },
        ],
        nextCursor: null,
      },
      [FOREIGN_PROJECT, new Invalid('range')],
    ),
    async (request): Promise<TestList> =>
      testQueries.list(request.account.accountId, request.query),
  );

  app.get(
    within(Areas.stats, Paths.getTest),
    readRoute(
      'One test: its recent runs and its failure messages',
      TestQuery,
      {
        test: {
          id: 'q0vB3kqYt1xXJ2Ck',
          suite: 'cart',
          classname: 'com.example.CartTest',
          name: 'appliesDiscount',
          file: null,
          line: null,
          first_seen: AT,
          quarantined: false,
        },
        runs: [
          {
            run_id: 'Xk2v9LqP0aZ1cB7d',
            build_id: '77/test',
            attempt: 1,
            commit: '9f2c1e7',
            branch: 'main',
            pull_request: null,
            created_at: AT,
            status: 'failed',
            duration_ms: 412,
            attempts: 1,
            message: 'expected:<10> but was:<9>',
          },
        ],
        messages: [{ message: 'expected:<10> but was:<9>', count: 6, last_at: AT }],
      },
      [FOREIGN_PROJECT, new NotFound('test')],
    ),
    async (request): Promise<TestDetail> =>
      testQueries.test(request.account.accountId, request.query),
  );

  app.get(
    within(Areas.stats, Paths.getTestRuns),
    readRoute(
      "A project's runs of tests, newest first",
      TestRunsQuery,
      {
        runs: [
          {
            id: 'Xk2v9LqP0aZ1cB7d',
            build_id: '77/test',
            attempt: 1,
            commit: '9f2c1e7',
            branch: 'main',
            pull_request: null,
            event_id: null,
            created_at: AT,
            passed: 1200,
            failed: 2,
            errors: 0,
            skipped: 14,
            passed_on_retry: 1,
            duration_ms: 81234,
            new_failures: 1,
            flaky_failures: 1,
          },
        ],
        nextCursor: null,
      },
      [FOREIGN_PROJECT, new Invalid('range')],
    ),
    async (request): Promise<TestRunList> =>
      testQueries.runs(request.account.accountId, request.query),
  );
};
