import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { OwnError } from '../../../../contract/error-texts.js';
import { Areas, Paths } from '../../../../contract/paths.js';
import {
  IngestTestsRequest,
  ingestTestsErrorText,
} from '../../../../contract/tests/ingest-tests.js';
import { TestLimits } from '../../../../contract/tests/test-limits.js';
import { Forbidden } from '../../../domain/domain-errors.js';
import { within } from '../area.js';
import { answer, checkIdempotencyKey, idempotencyKeyOf as keyOf } from '../idempotency-header.js';
import { ACCEPTED_ENCODINGS, gunzipBody } from './gzip-body.js';

const FOREIGN_PROJECT = new Forbidden('project');

/** Tests as data: the ingest of test cases (docs/tests.md). */
export const testRoutes: FastifyPluginAsyncZod = async (app) => {
  const { testIngest } = app.services;

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
      preParsing: gunzipBody,
      preValidation: checkIdempotencyKey,
    },
    async (request, reply) => {
      // Tells the reporter it may compress the next batches (RFC 7694).
      reply.header('accept-encoding', ACCEPTED_ENCODINGS);
      return answer(
        reply,
        await testIngest.ingest(request.account, request.body, keyOf(request.headers)),
      );
    },
  );
};
