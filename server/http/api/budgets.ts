import type { RouteOptions } from 'fastify';

/** The two budgets: E7/E8 (what CI sends) and every other API request (reads, settings). */
export type Budget = 'ingest' | 'other';

const INGEST_PATHS = ['/ingest-events', '/ingest-metrics'];

/**
 * E7 and E8 (under whichever prefix) spend the ingest budget; everything else the other. Known
 * when the route is registered, so that a request pays for no lookup.
 */
export function budgetOfRoute(route: Pick<RouteOptions, 'method' | 'url'>): Budget {
  const methods = [route.method].flat();
  return methods.length === 1 &&
    methods[0] === 'POST' &&
    INGEST_PATHS.some((end) => route.url.endsWith(end))
    ? 'ingest'
    : 'other';
}
