import { readBackErrorText } from '../../../contract/stats-queries.js';
import type { AnyDomainError } from '../../domain/domain-errors.js';

/**
 * The options of a route that reads (a project's records, statistics or tests): its summary and
 * query schema, a bad query answered with the read-back texts, and its docs (route-docs.ts): an
 * example of its answer and the domain errors its service may throw.
 */
export const readRoute = <Query>(
  summary: string,
  querystring: Query,
  example: unknown,
  throws: AnyDomainError[],
) => ({
  schema: { summary, querystring },
  config: { invalid: readBackErrorText, docs: { success: { example }, throws } },
});
