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
  connections: number;
  seconds: number;
}

const spec = JSON.parse(process.env.FLOOD ?? '{}') as FloodSpec;
const statuses: Record<string, number> = {};
let notJsonError = 0;

const result = await autocannon({
  url: spec.url,
  method: spec.method,
  headers: spec.headers,
  ...(spec.body === undefined ? {} : { body: spec.body }),
  connections: spec.connections,
  duration: spec.seconds,
  requests: [
    {
      onResponse: (status: number, body: string) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status >= 300) {
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
    errors: result.errors + result.timeouts,
    rps: Math.round(result.requests.average),
  })}\n`,
);
