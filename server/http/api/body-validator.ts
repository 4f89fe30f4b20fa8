import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { bodyIssuesOf } from '../../domain/faithful-json.js';

// zod/mini carries no messages of its own: the `issues` of a 400 use zod's English ones.
z.config(z.locales.en());

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
  return (data) => {
    const found = bodyIssuesOf(data);
    if (found === undefined) return validate(data);
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
