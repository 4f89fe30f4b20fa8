import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { IngestEventRequest } from '../../../contract/events.js';
import { quickIngestEvent, quickIngestMetric } from '../../../contract/ingest-check.js';
import { IngestMetricRequest } from '../../../contract/metrics.js';
import { bodyIssuesOf } from '../../domain/faithful-json.js';

// zod/mini carries no messages of its own: the `issues` of a 400 use zod's English ones.
z.config(z.locales.en());

/**
 * The zod-free checks of the two bodies sent most (contract/ingest-check.ts), asked before the
 * schema: a yes is the schema's yes with the body as the schema would give it back (but for the
 * order of its fields), so the handler gets the parsed body itself; a no goes to the schema, whose
 * verdict and 400 are the ones that count. zod took 9 µs of an E7's 80 on the event loop
 * (BENCHMARKS.md, issue 31).
 */
const QUICK_CHECKS = new Map<unknown, (body: unknown, inAnyOrder: boolean) => boolean>([
  [IngestEventRequest, quickIngestEvent],
  [IngestMetricRequest, quickIngestMetric],
]);

/**
 * The zod type provider's validator, plus the problems the JSON parser found in the body (values
 * JSON.parse would not keep as sent). Both reach the error handler as one list of schema issues,
 * so the route's 400 text and `issues` cover them alike, and E2 still judges its profile first.
 */
export const apiValidatorCompiler: FastifySchemaCompiler<z.core.$ZodType> = (route) => {
  const validate = validatorCompiler(route) as (data: unknown) => {
    error?: FastifySchemaValidationError[];
    value?: unknown;
  };
  if (route.httpPart !== 'body') return validate;
  const quick = QUICK_CHECKS.get(route.schema);
  return (data) => {
    const found = bodyIssuesOf(data);
    if (found === undefined) return quick?.(data, true) ? { value: data } : validate(data);
    const unfaithful = found.map(
      ({ path, message }): FastifySchemaValidationError => ({
        keyword: 'faithful',
        instancePath: `/${path.join('/')}`,
        schemaPath: '#',
        params: {},
        message,
      }),
    );
    return { error: [...unfaithful, ...(validate(data).error ?? [])] };
  };
};
