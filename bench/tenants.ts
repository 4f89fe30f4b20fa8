import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { type Account, call, newAccount } from './abuse.js';
import { type Service, startProcess, stop } from './processes.js';
import { seedTenant, tenantKeysOf } from './seed.js';
import { seedTenantPostgres } from './seed-postgres.js';

/**
 * One tenant's expensive reads beside another tenant's work (issue 22, part 1): a big project
 * (32,000 metric records of 100 numeric keys each, 20,000 distinct keys over time, 52,000 events)
 * whose share page and metric badge 8 connections each hammer, while another tenant sends E7 and
 * reads its events, one request after the other. That tenant's p99 is measured alone, then during
 * the flood, in the same run, on SQLite and (with BENCH_DATABASE_URL) on PostgreSQL. Target: p99
 * during ≤ 2 × alone + 20 ms, and every share page answered 200, 304 or 429 with Retry-After.
 */

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const SERVER_ENTRY = process.env.BENCH_SERVER_ENTRY ?? 'build/server/main.js';
const SECONDS = Number(process.env.BENCH_TENANT_SECONDS ?? 15);
const SIZES = {
  metrics: Number(process.env.BENCH_TENANT_METRICS ?? 32_000),
  events: Number(process.env.BENCH_TENANT_EVENTS ?? 52_000),
  keys: 20_000,
  days: 90,
};
const CONNECTIONS = 8;

interface Latency {
  samples: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
}

const summary = (times: number[], statuses: Record<string, number>): Latency => {
  times.sort((a, b) => a - b);
  const rank = (q: number) => Number((times[Math.floor(q * (times.length - 1))] ?? 0).toFixed(2));
  return { samples: times.length, p50: rank(0.5), p99: rank(0.99), max: rank(1), statuses };
};

/**
 * The other tenant: E7, then a read of its newest events (get-events?limit=20), one request after
 * the other, until `until` settles (or for SECONDS); the latency of each kind as it sees it.
 */
async function tenantClient(origin: string, account: Account, until: Promise<unknown>) {
  let over = false;
  void until.then(() => {
    over = true;
  });
  const ingest: number[] = [];
  const read: number[] = [];
  const statuses: Record<string, number> = {};
  for (let i = 0; !over; i++) {
    for (const [times, send] of [
      [
        ingest,
        () =>
          call(origin, '/stats/ingest-events', {
            key: account.apiKey,
            body: { projectId: account.projectId, eventType: 'build', payload: { i } },
          }),
      ],
      [
        read,
        () =>
          call(origin, `/stats/get-events?projectId=${account.projectId}&limit=20`, {
            key: account.apiKey,
          }),
      ],
    ] as const) {
      const started = performance.now();
      const res = await send();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      // A 429 is the client's own budget refusing it (answered after a pause, by design), not a
      // slow answer: counted in the statuses, kept out of the latencies.
      if (i >= 5 && res.status !== 429) times.push(performance.now() - started);
    }
  }
  return { ingest: summary(ingest, statuses), read: summary(read, statuses) };
}

/** 8 connections on one URL for SECONDS, in a process of their own (bench/flood.ts). */
async function flood(url: string) {
  const child = spawn(process.execPath, ['build/bench/flood.js'], {
    env: {
      ...process.env,
      FLOOD: JSON.stringify({
        url,
        method: 'GET',
        headers: {},
        html: true,
        connections: CONNECTIONS,
        seconds: SECONDS,
      }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  await once(child, 'exit');
  return JSON.parse(stdout) as {
    sent: number;
    answered: number;
    statuses: Record<string, number>;
    fiveXx: number;
    errors: number;
    retryAfterMissing: number;
    rps: number;
  };
}

async function serve(env: Record<string, string>): Promise<Service> {
  // LOG_LEVEL=info: the line the benchmark waits for; no request is logged at info. The other
  // tenant reads one request after the other, faster than the default per-key budget for reads
  // (20 a second): its budget is raised so that its latencies are its answers', not its own 429s
  // (the scenario measures one tenant's effect on another, not a key's own limit).
  return startProcess([SERVER_ENTRY], {
    PORT: '0',
    LOG_LEVEL: 'info',
    ADMIN_TOKEN,
    RATE_LIMIT_OTHER_PER_MINUTE: '600000',
    RATE_LIMIT_OTHER_BURST: '10000',
    ...env,
  });
}

/** The scenario on one backend: `database` is the server's DATABASE_PATH or DATABASE_URL. */
async function run(backend: 'sqlite' | 'postgres', database: string) {
  const env: Record<string, string> =
    backend === 'sqlite' ? { DATABASE_PATH: database } : { DATABASE_URL: database };
  // Accounts first (the server makes the schema), then the big project seeded with the server
  // stopped, as an operator's bulk load would be.
  const first = await serve(env);
  const big = await newAccount(first.url, 'big');
  const other = await newAccount(first.url, 'other');
  await stop(first);
  const seeding = performance.now();
  if (backend === 'sqlite') seedTenant(database, big.projectId, SIZES);
  else await seedTenantPostgres(database, big.projectId, SIZES);
  const seedSeconds = Number(((performance.now() - seeding) / 1000).toFixed(1));
  process.stderr.write(`tenants (${backend}): seeded in ${seedSeconds} s\n`);

  const server = await serve(env);
  try {
    const link = await call(server.url, '/stats/create-share-link', {
      key: big.apiKey,
      body: { projectId: big.projectId },
    });
    const { token } = JSON.parse(link.text) as { token: string };
    const page = `${server.url}/share/${token}`;
    const badge = `${server.url}/share/${token}/badge/metric/${tenantKeysOf(SIZES.metrics - 1, SIZES.metrics, SIZES.keys)[0]}.svg`;
    // The first share page after the load: how long one costs, and how big it is.
    const started = performance.now();
    const firstPage = await call(page, '');
    const firstPageMs = Number((performance.now() - started).toFixed(1));
    const firstPageKiB = Math.round(Buffer.byteLength(firstPage.text) / 1024);

    const seconds = () => new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    const alone = await tenantClient(server.url, other, seconds());
    process.stderr.write(`tenants (${backend}): alone ${JSON.stringify(alone)}\n`);
    const flooding = Promise.all([flood(page), flood(badge)]);
    const loaded = await tenantClient(server.url, other, flooding);
    const [pageFlood, badgeFlood] = await flooding;
    process.stderr.write(
      `tenants (${backend}): loaded ${JSON.stringify(loaded)} page ${JSON.stringify(pageFlood)} badge ${JSON.stringify(badgeFlood)}\n`,
    );
    const target = (a: Latency, l: Latency) => Number((2 * a.p99 + 20).toFixed(2)) >= l.p99;
    return {
      backend,
      sizes: SIZES,
      seedSeconds,
      firstPage: { status: firstPage.status, ms: firstPageMs, kib: firstPageKiB },
      alone,
      loaded,
      pageFlood,
      badgeFlood,
      met: {
        ingest: target(alone.ingest, loaded.ingest),
        read: target(alone.read, loaded.read),
        sharePageAnswers:
          pageFlood.errors === 0 &&
          pageFlood.retryAfterMissing === 0 &&
          Object.keys(pageFlood.statuses).every((s) => ['200', '304', '429'].includes(s)),
      },
    };
  } finally {
    await stop(server);
  }
}

export async function tenantsScenario(
  dir: string,
  withPostgres?: (work: (url: string) => Promise<unknown>) => Promise<unknown>,
) {
  const sqlite = await run('sqlite', join(dir, 'stats.db'));
  const postgres = withPostgres
    ? ((await withPostgres((url) => run('postgres', url))) as Awaited<ReturnType<typeof run>>)
    : undefined;
  return { sqlite, postgres };
}

/** The scenario's rows of BENCHMARKS.md. */
export function tenantsReport(results: Awaited<ReturnType<typeof tenantsScenario>>): string[] {
  const runs = [results.sqlite, results.postgres].filter((r) => r !== undefined);
  const lines = [
    '',
    `### One tenant's share page and badge flooded (${CONNECTIONS} + ${CONNECTIONS} connections, ${SECONDS} s); another tenant's E7 and get-events, one at a time`,
    '',
    `Big project: ${SIZES.metrics.toLocaleString('en')} metric records × 100 keys (${SIZES.keys.toLocaleString('en')} distinct), ${SIZES.events.toLocaleString('en')} events over ${SIZES.days} days.`,
    '',
    '| Backend | first share page (ms, KiB) | E7 p50 / p99 alone | E7 p50 / p99 flooded | get-events p50 / p99 alone | get-events p50 / p99 flooded | target (≤ 2 × alone + 20 ms) E7 / read | other tenant’s answers alone / flooded (429s not in the latencies) | share page answers | badge answers | timeouts |',
    '|---|---:|---:|---:|---:|---:|---|---|---|---|---:|',
  ];
  for (const r of runs) {
    lines.push(
      `| ${r.backend} | ${r.firstPage.ms}, ${r.firstPage.kib} | ${r.alone.ingest.p50} / ${r.alone.ingest.p99} | ${r.loaded.ingest.p50} / ${r.loaded.ingest.p99} | ${r.alone.read.p50} / ${r.alone.read.p99} | ${r.loaded.read.p50} / ${r.loaded.read.p99} | ${r.met.ingest ? 'met' : 'MISSED'} / ${r.met.read ? 'met' : 'MISSED'} | ${JSON.stringify(r.alone.ingest.statuses)} / ${JSON.stringify(r.loaded.ingest.statuses)} | ${JSON.stringify(r.pageFlood.statuses)} | ${JSON.stringify(r.badgeFlood.statuses)} | ${r.pageFlood.errors + r.badgeFlood.errors} |`,
    );
  }
  return lines;
}
