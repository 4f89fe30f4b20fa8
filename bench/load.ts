import autocannon from 'autocannon';
import { median } from './median.js';

/** One autocannon measurement of one target: the load both `npm run bench` and `--against` use. */

/** Connections autocannon keeps open, each sending its next request when the answer comes. */
export const CONNECTIONS = 50;

export interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  headers: Record<string, string>;
  /** Send a fresh Idempotency-Key with every request, as the Action does. */
  idempotent?: boolean;
}

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Requests answered in all. */
  total: number;
}

export async function measure(target: Target, seconds: number): Promise<Measurement> {
  let sequence = 0;
  const result = await autocannon({
    url: target.url,
    method: target.method,
    headers: target.headers,
    body: target.body,
    connections: CONNECTIONS,
    duration: seconds,
    ...(target.idempotent
      ? {
          requests: [
            {
              setupRequest: (request: autocannon.Request) => {
                sequence += 1;
                const key = `bench-${Date.now()}-${sequence}`;
                return { ...request, headers: { ...target.headers, 'idempotency-key': key } };
              },
            },
          ],
        }
      : {}),
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
  };
}

/** Medians of a target's rounds; refusals and errors summed. */
export function summarise(runs: Measurement[]) {
  return {
    rps: Math.round(median(runs.map((r) => r.rps))),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

/** The key the benchmark's servers are bootstrapped with. */
export const API_KEY = 'bench-api-key-0123456789abcdefghijklmnopqrstuvwxyz';

/** The E7 and E8 bodies every ingest scenario sends (E7 without a chat webhook). */
export function ingestBodies(projectId: string): { event: string; metric: string } {
  const payload = { duration_ms: 1234, ok: true, branch: 'main', commit: '0123456789abcdef' };
  return {
    event: JSON.stringify({
      projectId,
      eventType: 'build',
      description: 'bench run',
      payload,
      color: 65280,
    }),
    metric: JSON.stringify({ projectId, payload }),
  };
}

/** The production server's settings: a database of its own, the bench's key, any free port. */
export const serverEnv = (databasePath: string, durability: string) => ({
  DATABASE_PATH: databasePath,
  BOOTSTRAP_API_KEY: API_KEY,
  PORT: '0',
  LOG_LEVEL: 'info',
  DURABILITY: durability,
  // One key sends everything here: limits far above what it sends, so that the limiter's
  // bookkeeping is measured but never refuses (the flood scenario measures refusals).
  RATE_LIMIT_INGEST_PER_MINUTE: '10000000',
  RATE_LIMIT_OTHER_PER_MINUTE: '10000000',
});
