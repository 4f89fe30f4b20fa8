import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { startPrivatePostgres } from '../test/helpers/private-postgres.js';
import { startPrivateReplica } from '../test/helpers/private-replica.js';
import { API_KEY, serverEnv as benchServerEnv, ingestBodies } from './load.js';
import { type Service, startProcess, stop } from './processes.js';
import { seedHistoryPostgres } from './seed-postgres.js';

/**
 * Issue 29's figure: the project page and the series query with reads on a streaming replica
 * while the primary takes paced ingest (BENCH_REPLICA_RATE, 2,000 E8 requests a second), against
 * both on one database, in the same run (`BENCH_SCENARIOS=replica`; needs root and Debian's
 * postgresql-15 binaries). A private primary (initdb on a free port, in a temporary directory)
 * is seeded with a project of BENCH_REPLICA_RECORDS metric records and as many events over 90
 * days, then copied by `pg_basebackup -R` into a replica started beside it (the test helpers of
 * test/postgres/read-replica.test.ts). The server then runs in turn with DATABASE_REPLICA_URL
 * ("replica") and without ("primary"), in the order replica, primary, primary, replica so that a
 * drift of the machine's load or of the database's size weighs on both alike; in each phase the
 * ingest is paced by autocannon's overall rate while one client reads the project page (a share
 * link, its cache off) and the series (30 days, 200 buckets, with a second key of the account, so
 * read-your-writes does not send it to the primary), one request after the other, alternately.
 * /healthz is sampled every half second to show where reads went. Both clusters are removed at
 * the end. On machines of their own instead: BENCH_REPLICA_PRIMARY_URL names an empty database
 * of a primary, BENCH_REPLICA_STANDBY_URL the same database on its streaming replica (the
 * benchmark seeds the primary and leaves both as they end).
 */

const RATE = Number(process.env.BENCH_REPLICA_RATE ?? 2000);
const RECORDS = Number(process.env.BENCH_REPLICA_RECORDS ?? 200_000);
const SECONDS = Number(process.env.BENCH_REPLICA_SECONDS ?? 20);
/** Ingest before the reads are measured, in each phase. */
const WARM_UP_SECONDS = 3;
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const DAY = 86_400_000;

type Mode = 'replica' | 'primary';

interface Phase {
  mode: Mode;
  ingest: { rps: number; p50: number; p99: number; non2xx: number; errors: number };
  page: number[];
  series: number[];
  /** Health samples with reads on the replica, of all samples. */
  onReplica: number;
  healthSamples: number;
  maxLagSeconds: number;
  load: [number, number];
}

const rank = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.floor(q * (sorted.length - 1))] ?? 0).toFixed(1));
};

/** The primary's and the replica's database; `remove` ends what the benchmark started. */
interface Pair {
  primary: string;
  replica: string;
  /** Seconds it took to make the replica (0: given). */
  madeIn: number;
  remove(): void;
}

/** The pair given, or a private primary (its database created empty) and a replica made of it. */
async function pairOf(seed: (primary: string) => Promise<void>): Promise<Pair> {
  const given = [process.env.BENCH_REPLICA_PRIMARY_URL, process.env.BENCH_REPLICA_STANDBY_URL];
  if (given[0] && given[1]) {
    await seed(given[0]);
    return { primary: given[0], replica: given[1], madeIn: 0, remove: () => {} };
  }
  const primary = await startPrivatePostgres();
  try {
    const admin = postgres(primary.url('postgres'), { max: 1, onnotice: () => {} });
    await admin.unsafe('CREATE DATABASE stats');
    await admin.end({ timeout: 1 });
    await seed(primary.url('stats'));
    const started = Date.now();
    const replica = await startPrivateReplica(primary);
    return {
      primary: primary.url('stats'),
      replica: replica.url('stats'),
      madeIn: (Date.now() - started) / 1000,
      remove() {
        try {
          replica.remove();
        } finally {
          primary.stop();
        }
      },
    };
  } catch (error) {
    primary.stop();
    throw error;
  }
}

/** The server's settings on the primary, with or without the replica. */
function envFor(primary: string, replica: string | undefined) {
  const env: Record<string, string> = {
    ...benchServerEnv('', 'full'),
    DATABASE_URL: primary,
    ADMIN_TOKEN,
    // The page is measured, not the share link's cache or its rate limits.
    SHARE_CACHE_TTL_MS: '0',
    SHARE_RATE_PER_MINUTE: '10000000',
    SHARE_BURST: '10000000',
    SHARE_RATE_PER_ADDRESS_PER_MINUTE: '10000000',
    SHARE_ADDRESS_BURST: '10000000',
  };
  delete env.DATABASE_PATH;
  delete env.DURABILITY;
  if (replica) env.DATABASE_REPLICA_URL = replica;
  return env;
}

async function health(url: string): Promise<{ reads?: string; lagSeconds?: number }> {
  const res = await fetch(`${url}/healthz`);
  const body = (await res.json()) as { replica?: { reads?: string; lagSeconds?: number } };
  return body.replica ?? {};
}

/** One phase: paced ingest on `server`, the two reads measured alternately meanwhile. */
async function phase(
  mode: Mode,
  server: Service,
  reads: { page: string; series: string; readerKey: string },
  projectId: string,
): Promise<Phase> {
  const load: [number, number] = [loadavg()[0] ?? 0, 0];
  const ingest = autocannon({
    url: `${server.url}/stats/ingest-metrics`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
    body: ingestBodies(projectId).metric,
    connections: 50,
    overallRate: RATE,
    duration: WARM_UP_SECONDS + SECONDS,
  });
  await new Promise((resolve) => setTimeout(resolve, WARM_UP_SECONDS * 1000));
  const end = Date.now() + SECONDS * 1000;
  const page: number[] = [];
  const series: number[] = [];
  let onReplica = 0;
  let healthSamples = 0;
  let maxLagSeconds = 0;
  const sampler = setInterval(() => {
    void health(server.url).then((h) => {
      healthSamples += 1;
      if (h.reads === 'replica') onReplica += 1;
      maxLagSeconds = Math.max(maxLagSeconds, h.lagSeconds ?? 0);
    });
  }, 500);
  try {
    while (Date.now() < end) {
      for (const [times, url, headers] of [
        [page, reads.page, {}],
        [series, reads.series, { 'x-api-key': reads.readerKey }],
      ] as const) {
        const started = performance.now();
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`${url} answered ${res.status}`);
        times.push(performance.now() - started);
      }
    }
  } finally {
    clearInterval(sampler);
  }
  const result = await ingest;
  load[1] = loadavg()[0] ?? 0;
  const done: Phase = {
    mode,
    ingest: {
      rps: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    },
    page,
    series,
    onReplica,
    healthSamples,
    maxLagSeconds,
    load,
  };
  process.stderr.write(
    `replica scenario, reads on ${mode}: ingest ${done.ingest.rps} req/s (p99 ${done.ingest.p99} ms, ${done.ingest.non2xx + done.ingest.errors} refused), page p50 ${rank(page, 0.5)} p99 ${rank(page, 0.99)} ms, series p50 ${rank(series, 0.5)} p99 ${rank(series, 0.99)} ms, on the replica ${onReplica}/${healthSamples}, load ${load.map((l) => l.toFixed(1)).join(' → ')}\n`,
  );
  return done;
}

async function until(done: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function replicaScenario() {
  let projectId = '';
  let accountId = '';
  let seedSeconds = 0;
  // First start: the account, its key and project; then the history seeded while it is stopped.
  const pair = await pairOf(async (primary) => {
    const first = await startProcess(['build/server/main.js'], envFor(primary, undefined));
    projectId = /project id:\s+(\S+)/.exec(first.stdout)?.[1] as string;
    accountId = /account id:\s+(\S+)/.exec(first.stdout)?.[1] as string;
    await stop(first);
    const started = Date.now();
    await seedHistoryPostgres(primary, projectId, RECORDS, 90);
    seedSeconds = (Date.now() - started) / 1000;
  });
  let server: Service | undefined;
  try {
    process.stderr.write(
      `replica scenario: seeded ${RECORDS} metrics and events in ${seedSeconds} s, replica made in ${pair.madeIn} s\n`,
    );

    // A second key (the reader: it writes nothing) and the share link, made once.
    server = await startProcess(['build/server/main.js'], envFor(pair.primary, pair.replica));
    const url = server.url;
    const key = await fetch(`${url}/admin/accounts/${accountId}/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'reader' }),
    });
    if (!key.ok) throw new Error(`the reader's key: ${key.status} ${await key.text()}`);
    const { apiKey: readerKey } = (await key.json()) as { apiKey: string };
    const link = await fetch(`${url}/stats/create-share-link`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ projectId }),
    });
    const { token } = (await link.json()) as { token: string };
    await stop(server);
    server = undefined;

    const phases: Phase[] = [];
    for (const mode of ['replica', 'primary', 'primary', 'replica'] as Mode[]) {
      const running = await startProcess(
        ['build/server/main.js'],
        envFor(pair.primary, mode === 'replica' ? pair.replica : undefined),
      );
      server = running;
      if (mode === 'replica') {
        await until(async () => (await health(running.url)).reads === 'replica', 30_000, 'replica');
      }
      const from = new Date(Date.now() - 30 * DAY).toISOString();
      const to = new Date().toISOString();
      const query = new URLSearchParams({
        projectId,
        key: 'duration_ms',
        from,
        to,
        buckets: '200',
      });
      const reads = {
        page: `${server.url}/share/${token}?range=30d`,
        series: `${server.url}/stats/get-metric-series?${query}`,
        readerKey,
      };
      phases.push(await phase(mode, server, reads, projectId));
      await stop(server);
      server = undefined;
    }
    return { rate: RATE, records: RECORDS, seconds: SECONDS, seedSeconds, phases };
  } finally {
    if (server) await stop(server);
    pair.remove();
  }
}

/** The scenario's table: per mode, the phases pooled. */
export function replicaReport(run: Awaited<ReturnType<typeof replicaScenario>>): string[] {
  const lines = [
    `### Reads on a streaming replica beside ${run.rate} ingest requests a second (issue 29)`,
    '',
    `${run.records} metric records and as many events over 90 days; ${run.seconds} s per phase, phases in the order replica, primary, primary, replica.`,
    '',
    '| Reads on | ingest req/s (p99 ms) | project page p50 / p99 ms | series p50 / p99 ms | reads on the replica | load average |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const p of run.phases) {
    lines.push(
      `| ${p.mode} | ${p.ingest.rps} (${p.ingest.p99}) | ${rank(p.page, 0.5)} / ${rank(p.page, 0.99)} | ${rank(p.series, 0.5)} / ${rank(p.series, 0.99)} | ${p.onReplica}/${p.healthSamples} | ${p.load.map((l) => l.toFixed(1)).join(' → ')} |`,
    );
  }
  for (const mode of ['replica', 'primary'] as Mode[]) {
    const of = run.phases.filter((p) => p.mode === mode);
    const page = of.flatMap((p) => p.page);
    const series = of.flatMap((p) => p.series);
    lines.push(
      `| **${mode}, both phases** | ${Math.round(of.reduce((n, p) => n + p.ingest.rps, 0) / of.length)} | **${rank(page, 0.5)} / ${rank(page, 0.99)}** | **${rank(series, 0.5)} / ${rank(series, 0.99)}** | | |`,
    );
  }
  return lines;
}
