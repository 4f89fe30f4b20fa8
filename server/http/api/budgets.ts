import type { FastifyRequest } from 'fastify';

/** The two budgets: E7/E8 (what CI sends) and every other API request (reads, settings). */
export type Budget = 'ingest' | 'other';

const INGEST_PATHS = ['/ingest-events', '/ingest-metrics'];

/** E7 and E8 (under whichever prefix) spend the ingest budget; everything else the other. */
export function budgetOf(request: FastifyRequest): Budget {
  const path = request.routeOptions.url ?? '';
  return request.method === 'POST' && INGEST_PATHS.some((end) => path.endsWith(end))
    ? 'ingest'
    : 'other';
}
