import type { IncomingHttpHeaders } from 'node:http';
import autocannon from 'autocannon';

/**
 * One key flooding the server, in a process of its own so that it does not share an event loop
 * with the client whose latency is measured. Arguments come as one JSON object in FLOOD; the
 * outcome (answers by status, 5xx, answers that are not a JSON `{ "error" }` when they are not
 * 2xx) is printed as JSON on stdout.
 */
interface FloodSpec {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Pages and badges: their refusals are HTML, not JSON. */
  html?: boolean;
  connections: number;
  seconds: number;
}

const spec = JSON.parse(process.env.FLOOD ?? '{}') as FloodSpec;
const statuses: Record<string, number> = {};
let notJsonError = 0;
/** 429s without Retry-After. */
let retryAfterMissing = 0;

const result = await autocannon({
  url: spec.url,
  method: spec.method,
  headers: spec.headers,
  ...(spec.body === undefined ? {} : { body: spec.body }),
  connections: spec.connections,
  duration: spec.seconds,
  requests: [
    {
      onResponse: (
        status: number,
        body: string,
        _context: object,
        headers?: IncomingHttpHeaders,
      ) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        const named = Object.keys(headers ?? {}).some(
          (name) => name.toLowerCase() === 'retry-after',
        );
        if (status === 429 && !named) retryAfterMissing += 1;
        // Pages answer in HTML: only the API's answers must be a JSON `{ "error" }`.
        if (status >= 300 && status !== 304 && !spec.html) {
          try {
            const parsed = JSON.parse(body) as Record<string, unknown>;
            const keys = Object.keys(parsed);
            if (keys.length !== 1 || typeof parsed.error !== 'string') notJsonError += 1;
          } catch {
            notJsonError += 1;
          }
        }
      },
    },
  ],
});

const fiveXx = Object.entries(statuses)
  .filter(([status]) => Number(status) >= 500)
  .reduce((n, [, count]) => n + count, 0);
process.stdout.write(
  `${JSON.stringify({
    sent: result.requests.sent,
    answered: Object.values(statuses).reduce((n, count) => n + count, 0),
    statuses,
    fiveXx,
    notJsonError,
    retryAfterMissing,
    errors: result.errors + result.timeouts,
    rps: Math.round(result.requests.average),
  })}\n`,
);
