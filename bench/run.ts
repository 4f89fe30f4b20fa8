import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { bodiesScenario, floodScenario, stalledScenario } from './abuse.js';
import { againstFromArgs } from './against.js';
import { withBenchDatabase } from './bench-database.js';
import { benchmarkParseScenario } from './benchmark-parse.js';
import { changePointScenario } from './change-points.js';
import { type CompareRun, compareOnPostgres, compareOnSqlite, compareReport } from './compare.js';
import {
  API_KEY,
  serverEnv as benchServerEnv,
  CONNECTIONS,
  ingestBodies,
  type Measurement,
  measure,
  summarise,
  type Target,
} from './load.js';
import { compareClients } from './pg-clients.js';
import { startProcess, stop } from './processes.js';
import { replicaReport, replicaScenario } from './replica-reads.js';
import { seedEvents, seedHistory } from './seed.js';
import { seedHistoryPostgres } from './seed-postgres.js';
import { tenantsReport, tenantsScenario } from './tenants.js';
import {
  postgresBytesPerResult,
  seedTestsPostgres,
  seedTestsSqlite,
  sqliteBytesPerResult,
  testsReport,
  testsScaleOf,
  testsScenario,
} from './tests-scale.js';

/**
 * `npm run bench`: the production server against a bare Fastify route, in the same run.
 * Scenario `ingest`: E7, E8 and E6 on a new database, alternating with the reference.
 * Scenario `seeded`: E7 again on a database that already holds a million events.
 * Scenario `page`: the public page (200 and 304) against a bare route serving HTML of its size.
 * With BENCH_DATABASE_URL (a PostgreSQL cluster; each run creates and drops a database of its
 *   own), scenario `ingest` runs again on PostgreSQL, beside a naive one-transaction-per-request
 *   insert with each client (`postgres`, `pg`), and the two clients are compared in-process.
 * Scenario `verdicts`: change points of 10,000 values beside a naive O(n²) scan, the incremental
 *   cost of one value, and detection quality on seeded synthetic series (bench/change-points.ts).
 * Scenario `compare` (not in the default set: it seeds a million records per backend): GET
 *   /stats/compare for a record of 50 keys with thresholds on a project of BENCH_COMPARE_RECORDS
 *   metric records, the newest BENCH_COMPARE_WIDE of them with the 50 keys (bench/compare.ts);
 *   with BENCH_DATABASE_URL, again on PostgreSQL.
 * Scenario `stats`: statistics queries on a project with a million metrics and a million events
 *   over 90 days, one request at a time (latency, not throughput), beside the bare GET route;
 *   with BENCH_DATABASE_URL, again on PostgreSQL (a database `statsbench_…` of its own).
 */

// `npm run bench -- --against <ref>`: this tree's ingest against another commit's (bench/against.ts).
if (process.argv.includes('--against')) {
  await againstFromArgs(process.argv.slice(2));
  process.exit(0);
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SEEDED_EVENTS = Number(process.env.BENCH_SEEDED_EVENTS ?? 1_000_000);
/** Metric records and events (each) of the statistics scenario. */
const HISTORY_RECORDS = Number(process.env.BENCH_HISTORY_RECORDS ?? 1_000_000);
/** Requests per statistics query (after 10 unmeasured ones). */
const QUERY_SAMPLES = Number(process.env.BENCH_QUERY_SAMPLES ?? 200);
/** The compare scenario's project: its metric records, and how many of the newest carry 50 keys. */
const COMPARE_SIZE = {
  count: Number(process.env.BENCH_COMPARE_RECORDS ?? 1_000_000),
  wide: Number(process.env.BENCH_COMPARE_WIDE ?? 1_000_000),
  days: 365,
};
/**
 * Which scenarios run: `ingest` (new database), `seeded`, `page`, `stats`, `stalled`, `flood`,
 * `bodies`, `verdicts`, `tenants` (issue 22: one tenant's share page and badge flooded beside
 * another tenant's work, on SQLite and, with BENCH_DATABASE_URL, PostgreSQL), `benchmarks`
 * (bench/benchmark-parse.ts), `tests` (issue 25: the Tests reads on 10 M results on SQLite and,
 * with BENCH_DATABASE_URL, 50 M on PostgreSQL; bench/tests-scale.ts, scaled down with
 * BENCH_TESTS, BENCH_TEST_RUNS, BENCH_TEST_RESULTS, BENCH_TEST_RESULTS_PG,
 * BENCH_TESTS_SAMPLES); all by default. Asked for by name only: `replica` (issue 29: the page and
 * the series read on a streaming replica beside paced ingest, against on the primary; a private
 * primary and replica of its own, so root and postgresql-15's binaries; bench/replica-reads.ts).
 */
const SCENARIOS = new Set(
  (
    process.env.BENCH_SCENARIOS ??
    'ingest,seeded,page,stats,stalled,flood,bodies,verdicts,tenants,benchmarks,tests'
  )
    .split(',')
    .map((name) => name.trim()),
);
/** A PostgreSQL cluster to run the ingest scenario on too (see withBenchDatabase). */
const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL;
/** The server's DURABILITY; `full`, the default, is what the targets are about. */
const DURABILITY = process.env.BENCH_DURABILITY ?? 'full';

/** Runs every target once per round, rotating the order, after a short warm-up of each. */
async function rounds(targets: Target[]): Promise<Record<string, ReturnType<typeof summarise>>> {
  for (const target of targets) await measure(target, 2);
  const runs = new Map<string, Measurement[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length] as Target);
    for (const target of order) {
      const m = await measure(target, SECONDS);
      runs.get(target.name)?.push(m);
      process.stderr.write(
        `round ${round + 1} ${target.name}: ${m.rps} req/s p50 ${m.p50} ms p99 ${m.p99} ms\n`,
      );
    }
  }
  return Object.fromEntries([...runs].map(([name, list]) => [name, summarise(list)]));
}

/** A typical public page: the one the page scenario serves. */
async function publishPage(
  server: string,
): Promise<{ etag: string; htmlBytes: number; cssBytes: number }> {
  const post = (path: string, body?: unknown) =>
    fetch(`${server}${path}`, {
      method: 'POST',
      headers: {
        'x-api-key': API_KEY,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  await post('/account/update-display-name', { display_name: 'bench-page' });
  await post('/email-forwarding/email-forwarding-toggle', {
    enabled: true,
    email: 'b@example.org',
  });
  await post('/pagesite/update-site-configuration', {
    bio: 'Platform engineer. I keep the build green and the release train on time.\nWriting about CI pipelines, flaky tests and the metrics that matter.',
    avatar_url: 'https://images.example.com/avatars/bench-page.png',
    location: 'Amsterdam',
    mood: 'shipping',
    theme_id: 'midnight',
    blocks: [
      { type: 'text', content: 'Now: cutting our median pipeline time in half.' },
      { type: 'link', content: 'https://blog.example.com/posts/faster-pipelines' },
      { type: 'link', content: 'https://github.com/bench-page' },
      { type: 'link', content: 'https://talks.example.org/2026/flaky-tests' },
    ],
  });
  await post('/pagesite/toggle-site-visibility');
  const page = await fetch(`${server}/@bench-page`);
  const html = await page.text();
  const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(html)?.[1] ?? '';
  const css = await (await fetch(`${server}${stylesheet}`)).text();
  return {
    etag: page.headers.get('etag') ?? '',
    htmlBytes: Buffer.byteLength(html),
    cssBytes: Buffer.byteLength(css),
  };
}

function targetsFor(server: string, reference: string, projectId: string, page = { etag: '' }) {
  const { event: eventBody, metric: metricBody } = ingestBodies(projectId);
  const json = { 'content-type': 'application/json', 'x-api-key': API_KEY };
  return {
    reference: {
      name: 'reference',
      url: `${reference}/ingest`,
      method: 'POST',
      body: eventBody,
      headers: json,
    } as Target,
    naivePostgres: {
      name: 'naive PostgreSQL insert (postgres)',
      url: `${reference}/naive-postgres/ingest`,
      method: 'POST',
      body: eventBody,
      headers: json,
    } as Target,
    naivePostgresTransaction: {
      name: 'naive PostgreSQL insert in BEGIN…COMMIT (postgres)',
      url: `${reference}/naive-postgres-transaction/ingest`,
      method: 'POST',
      body: eventBody,
      headers: json,
    } as Target,
    naivePg: {
      name: 'naive PostgreSQL insert (pg)',
      url: `${reference}/naive-pg/ingest`,
      method: 'POST',
      body: eventBody,
      headers: json,
    } as Target,
    e7: {
      name: 'E7 ingest-events',
      url: `${server}/stats/ingest-events`,
      method: 'POST',
      body: eventBody,
      headers: json,
    } as Target,
    e7idempotent: {
      name: 'E7 + Idempotency-Key',
      url: `${server}/stats/ingest-events`,
      method: 'POST',
      body: eventBody,
      headers: json,
      idempotent: true,
    } as Target,
    e8: {
      name: 'E8 ingest-metrics',
      url: `${server}/stats/ingest-metrics`,
      method: 'POST',
      body: metricBody,
      headers: json,
    } as Target,
    e6: {
      name: 'E6 get-projects',
      url: `${server}/stats/get-projects`,
      method: 'GET',
      headers: { 'x-api-key': API_KEY },
    } as Target,
    referencePage: {
      name: 'reference page',
      url: `${reference}/page`,
      method: 'GET',
      headers: { accept: 'text/html' },
    } as Target,
    page200: {
      name: 'GET /@name (200)',
      url: `${server}/@bench-page`,
      method: 'GET',
      headers: { accept: 'text/html' },
    } as Target,
    page304: {
      name: 'GET /@name (304)',
      url: `${server}/@bench-page`,
      method: 'GET',
      headers: { accept: 'text/html', 'if-none-match': page.etag },
    } as Target,
  };
}

function table(
  title: string,
  results: Record<string, ReturnType<typeof summarise>>,
  reference: string,
): string {
  const ref = results[reference];
  const lines = [
    `### ${title}`,
    '',
    '| Target | req/s | p50 ms | p99 ms | req/s vs reference | p99 vs reference | non-2xx |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [name, r] of Object.entries(results)) {
    const ratio = ref ? `${((r.rps / ref.rps) * 100).toFixed(1)} %` : '';
    const p99 = ref ? `${(r.p99 / Math.max(ref.p99, 1)).toFixed(2)}×` : '';
    lines.push(
      `| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | ${ratio} | ${p99} | ${r.non2xx + r.errors} |`,
    );
  }
  return lines.join('\n');
}

const serverEnv = (databasePath: string) => benchServerEnv(databasePath, DURABILITY);

async function scenario(
  dir: string,
  seed: number,
  names: (keyof ReturnType<typeof targetsFor>)[],
  withPage = false,
) {
  const databasePath = join(dir, 'stats.db');
  const env = serverEnv(databasePath);
  // First start creates the account and project; the banner names the project.
  let server = await startProcess(['build/server/main.js'], env);
  const projectId = /project id:\s+(\S+)/.exec(server.stdout)?.[1] as string;
  if (seed > 0) {
    await stop(server);
    const started = Date.now();
    seedEvents(databasePath, projectId, seed);
    process.stderr.write(
      `seeded ${seed} events in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    server = await startProcess(['build/server/main.js'], env);
  }
  const page = withPage ? await publishPage(server.url) : undefined;
  const reference = await startProcess(['build/bench/reference-server.js'], {
    PAGE_BYTES: String(page?.htmlBytes ?? 2000),
  });
  const targets = targetsFor(server.url, reference.url, projectId, page);
  const results = await rounds(names.map((name) => targets[name]));
  const serverPeakRssMb = await stop(server);
  const referencePeakRssMb = await stop(reference);
  return { results, serverPeakRssMb, referencePeakRssMb, page };
}

/**
 * The ingest scenario on PostgreSQL: the server with DATABASE_URL, beside the bare route and the
 * naive one-transaction-per-request insert with each client, on a database of its own; then
 * the two clients compared in-process on the same database.
 */
async function postgresIngestScenario(url: string) {
  const env = { ...serverEnv(''), DATABASE_URL: url };
  delete (env as Partial<typeof env>).DATABASE_PATH;
  delete (env as Partial<typeof env>).DURABILITY;
  const server = await startProcess(['build/server/main.js'], env);
  const projectId = /project id:\s+(\S+)/.exec(server.stdout)?.[1] as string;
  const reference = await startProcess(['build/bench/reference-server.js'], { PAGE_BYTES: '2000' });
  const naiveServer = (client: string, mode: string) =>
    startProcess(['build/bench/naive-pg-server.js'], {
      NAIVE_DATABASE_URL: url,
      NAIVE_CLIENT: client,
      NAIVE_MODE: mode,
    });
  const naive = {
    postgres: await naiveServer('postgres', 'statement'),
    postgresTransaction: await naiveServer('postgres', 'transaction'),
    pg: await naiveServer('pg', 'statement'),
  };
  const targets = targetsFor(server.url, reference.url, projectId);
  targets.naivePostgres.url = `${naive.postgres.url}/ingest`;
  targets.naivePostgresTransaction.url = `${naive.postgresTransaction.url}/ingest`;
  targets.naivePg.url = `${naive.pg.url}/ingest`;
  const results = await rounds([
    targets.reference,
    targets.naivePostgres,
    targets.naivePostgresTransaction,
    targets.naivePg,
    targets.e7,
    targets.e8,
    targets.e7idempotent,
  ]);
  const serverPeakRssMb = await stop(server);
  for (const service of [reference, ...Object.values(naive)]) await stop(service);
  const clients = await compareClients(url, projectId, SECONDS, ROUNDS);
  return { results, serverPeakRssMb, clients };
}

/** p50 and p99 (ms) of `QUERY_SAMPLES` requests made one after another. */
async function latencies(url: string, headers: Record<string, string>) {
  const times: number[] = [];
  for (let i = 0; i < QUERY_SAMPLES + 10; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
    if (i >= 10) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const rank = (q: number) => times[Math.floor(q * (times.length - 1))] as number;
  return { p50: Number(rank(0.5).toFixed(2)), p99: Number(rank(0.99).toFixed(2)) };
}

/** The statistics queries of issue 12 on a seeded project, one request at a time. */
async function statsScenario(dir: string) {
  const databasePath = join(dir, 'stats.db');
  return statsQueries(serverEnv(databasePath), (projectId) =>
    seedHistory(databasePath, projectId, HISTORY_RECORDS, 90),
  );
}

/** The same on PostgreSQL, on a database of its own (seeded by the database itself). */
async function postgresStatsScenario(url: string) {
  const env = { ...serverEnv(''), DATABASE_URL: url };
  delete (env as Partial<typeof env>).DATABASE_PATH;
  delete (env as Partial<typeof env>).DURABILITY;
  return statsQueries(env, (projectId) => seedHistoryPostgres(url, projectId, HISTORY_RECORDS, 90));
}

/** Starts the server, stops it to seed its project with `seed`, then measures each query. */
async function statsQueries(
  env: Record<string, string>,
  seed: (projectId: string) => void | Promise<void>,
) {
  let server = await startProcess(['build/server/main.js'], env);
  const projectId = /project id:\s+(\S+)/.exec(server.stdout)?.[1] as string;
  await stop(server);
  const started = Date.now();
  await seed(projectId);
  const seedSeconds = (Date.now() - started) / 1000;
  process.stderr.write(`seeded ${HISTORY_RECORDS} metrics and events in ${seedSeconds} s\n`);
  server = await startProcess(['build/server/main.js'], env);
  const reference = await startProcess(['build/bench/reference-server.js'], { PAGE_BYTES: '2000' });
  const day = 24 * 60 * 60 * 1000;
  const from = new Date(Date.now() - 30 * day).toISOString();
  const to = new Date().toISOString();
  const key = { 'x-api-key': API_KEY };
  const q = (path: string, query: Record<string, string>) =>
    `${server.url}${path}?${new URLSearchParams({ projectId, ...query })}`;
  const queries: [string, string, Record<string, string>][] = [
    ['bare GET (reference)', `${reference.url}/page`, {}],
    [
      'get-metric-series (30 d, 200 buckets)',
      q('/stats/get-metric-series', { key: 'duration_ms', from, to, buckets: '200' }),
      key,
    ],
    [
      'get-metric-series (30 d, 200 buckets, one branch)',
      q('/stats/get-metric-series', {
        key: 'duration_ms',
        from,
        to,
        buckets: '200',
        branch: 'main',
      }),
      key,
    ],
    ['get-metric-keys', q('/stats/get-metric-keys', {}), key],
    ['get-build-summary (30 d)', q('/stats/get-build-summary', { from, to }), key],
    [
      'get-events (branch + type + status, 50)',
      q('/stats/get-events', {
        branch: 'develop',
        eventType: 'build',
        status: 'failure',
        limit: '50',
      }),
      key,
    ],
    [
      'get-events (7 days ago, one day, 50)',
      q('/stats/get-events', {
        from: new Date(Date.now() - 7 * day).toISOString(),
        to: new Date(Date.now() - 6 * day).toISOString(),
        limit: '50',
      }),
      key,
    ],
  ];
  // The project page as a share link shows it (the owner's page is the same HTML).
  const link = await fetch(`${server.url}/stats/create-share-link`, {
    method: 'POST',
    headers: { ...key, 'content-type': 'application/json' },
    body: JSON.stringify({ projectId }),
  });
  const { token } = (await link.json()) as { token: string };
  queries.push([
    'project page HTML (30 d, share link)',
    `${server.url}/share/${token}?range=30d`,
    {},
  ]);
  queries.push([
    'project page HTML (90 d, one branch)',
    `${server.url}/share/${token}?range=90d&branch=main`,
    {},
  ]);
  const results: Record<string, { p50: number; p99: number }> = {};
  for (const [name, url, headers] of queries) {
    results[name] = await latencies(url, headers);
    process.stderr.write(`${name}: p50 ${results[name].p50} ms p99 ${results[name].p99} ms\n`);
  }
  const serverPeakRssMb = await stop(server);
  await stop(reference);
  return { results, seedSeconds, serverPeakRssMb };
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;
const rpsOf = (results: Record<string, { rps: number }>, name: string) => results[name]?.rps ?? 0;

const work = mkdtempSync(join(tmpdir(), 'ci-stats-bench-'));
try {
  const report = [
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    `${ROUNDS} rounds × ${SECONDS} s per target, ${CONNECTIONS} connections, medians of the rounds; server DURABILITY=${DURABILITY}; scenarios: ${[...SCENARIOS].join(', ')}.`,
  ];
  const results: Record<string, unknown> = {};
  const ratios: Record<string, number> = {};

  if (SCENARIOS.has('ingest')) {
    mkdirSync(join(work, 'empty'));
    const empty = await scenario(join(work, 'empty'), 0, [
      'reference',
      'e7',
      'e8',
      'e6',
      'e7idempotent',
    ]);
    results.empty = empty;
    const reference = rpsOf(empty.results, 'reference');
    ratios.e7VsReference = rpsOf(empty.results, 'E7 ingest-events') / reference;
    ratios.e8VsReference = rpsOf(empty.results, 'E8 ingest-metrics') / reference;
    report.push(
      '',
      table('New database', empty.results, 'reference'),
      '',
      `Peak RSS: server ${empty.serverPeakRssMb} MiB, reference ${empty.referencePeakRssMb} MiB.`,
    );
  }

  if (SCENARIOS.has('ingest') && BENCH_DATABASE_URL) {
    const onPostgres = await withBenchDatabase(BENCH_DATABASE_URL, postgresIngestScenario);
    results.postgres = onPostgres;
    const r = onPostgres.results;
    // Against the faster of the two naive forms: the target's ratio must hold against either.
    const naive = Math.max(
      rpsOf(r, 'naive PostgreSQL insert (postgres)'),
      rpsOf(r, 'naive PostgreSQL insert in BEGIN…COMMIT (postgres)'),
    );
    ratios.pgE7VsNaive = rpsOf(r, 'E7 ingest-events') / naive;
    ratios.pgE8VsNaive = rpsOf(r, 'E8 ingest-metrics') / naive;
    const empty = results.empty as { results: Record<string, { rps: number }> } | undefined;
    if (empty) {
      ratios.pgE7VsSqlite = rpsOf(r, 'E7 ingest-events') / rpsOf(empty.results, 'E7 ingest-events');
      ratios.pgE8VsSqlite =
        rpsOf(r, 'E8 ingest-metrics') / rpsOf(empty.results, 'E8 ingest-metrics');
    }
    const c = onPostgres.clients;
    report.push(
      '',
      table('PostgreSQL (DATABASE_URL), new database', r, 'reference'),
      '',
      `Grouped on PostgreSQL against the faster naive one-transaction-per-request insert (postgres client): E7 ${ratios.pgE7VsNaive.toFixed(1)}×, E8 ${ratios.pgE8VsNaive.toFixed(1)}×.` +
        (empty
          ? ` Against SQLite in the same run: E7 ${percent(ratios.pgE7VsSqlite ?? 0)}, E8 ${percent(ratios.pgE8VsSqlite ?? 0)}.`
          : ''),
      `Peak RSS of the server on PostgreSQL: ${onPostgres.serverPeakRssMb} MiB.`,
      '',
      '### PostgreSQL clients on the ingest workload (in-process, 50 callers, appends committed)',
      '',
      '| Client | naive appends/s | naive CPU µs/append | grouped appends/s | grouped CPU µs/append |',
      '|---|---:|---:|---:|---:|',
      ...['postgres', 'pg'].map(
        (name) =>
          `| ${name} | ${c[`${name} naive`]?.perSecond} | ${c[`${name} naive`]?.cpuUsPerAppend} | ${c[`${name} grouped`]?.perSecond} | ${c[`${name} grouped`]?.cpuUsPerAppend} |`,
      ),
    );
  }

  if (SCENARIOS.has('seeded')) {
    mkdirSync(join(work, 'seeded'));
    const seeded = await scenario(join(work, 'seeded'), SEEDED_EVENTS, ['reference', 'e7']);
    results.seeded = seeded;
    const stored = SEEDED_EVENTS.toLocaleString('en');
    report.push('', table(`${stored} events already stored`, seeded.results, 'reference'));
    const empty = results.empty as typeof seeded | undefined;
    if (empty) {
      ratios.e7SeededVsEmpty =
        rpsOf(seeded.results, 'E7 ingest-events') / rpsOf(empty.results, 'E7 ingest-events');
      report.push(
        '',
        `E7 with ${stored} events stored: ${percent(ratios.e7SeededVsEmpty)} of the new-database figure; peak RSS of the server ${seeded.serverPeakRssMb} MiB.`,
      );
    }
  }

  if (SCENARIOS.has('page')) {
    mkdirSync(join(work, 'page'));
    const pages = await scenario(
      join(work, 'page'),
      0,
      ['referencePage', 'page200', 'page304'],
      true,
    );
    results.pages = pages;
    const reference = rpsOf(pages.results, 'reference page');
    ratios.page200VsReference = rpsOf(pages.results, 'GET /@name (200)') / reference;
    ratios.page304VsReference = rpsOf(pages.results, 'GET /@name (304)') / reference;
    const html = pages.page?.htmlBytes ?? 0;
    const css = pages.page?.cssBytes ?? 0;
    report.push(
      '',
      table('The public page', pages.results, 'reference page'),
      '',
      `Page: 200 at ${percent(ratios.page200VsReference)} and 304 at ${percent(ratios.page304VsReference)} of the bare route; HTML ${html} B + stylesheet ${css} B = ${html + css} B.`,
    );
  }

  if (SCENARIOS.has('stats')) {
    mkdirSync(join(work, 'stats'));
    const stats = await statsScenario(join(work, 'stats'));
    results.stats = stats;
    const records = HISTORY_RECORDS.toLocaleString('en');
    report.push(
      '',
      `### Statistics: ${records} metric records and ${records} events over 90 days`,
      '',
      `${QUERY_SAMPLES} requests each, one at a time (latency as the client sees it, HTTP included).`,
      '',
      '| Query | p50 ms | p99 ms |',
      '|---|---:|---:|',
      ...Object.entries(stats.results).map(([name, r]) => `| ${name} | ${r.p50} | ${r.p99} |`),
      '',
      `Seeding and folding took ${stats.seedSeconds} s; peak RSS of the server ${stats.serverPeakRssMb} MiB.`,
    );
  }

  if (SCENARIOS.has('stats') && BENCH_DATABASE_URL) {
    const stats = await withBenchDatabase(BENCH_DATABASE_URL, postgresStatsScenario, 'statsbench');
    results.postgresStats = stats;
    const sqlite = (results.stats as typeof stats | undefined)?.results ?? {};
    const records = HISTORY_RECORDS.toLocaleString('en');
    report.push(
      '',
      `### Statistics on PostgreSQL: ${records} metric records and ${records} events over 90 days`,
      '',
      `${QUERY_SAMPLES} requests each, one at a time, beside SQLite's figures of the same run.`,
      '',
      '| Query | PostgreSQL p50 ms | PostgreSQL p99 ms | SQLite p50 ms | SQLite p99 ms |',
      '|---|---:|---:|---:|---:|',
      ...Object.entries(stats.results).map(
        ([name, r]) =>
          `| ${name} | ${r.p50} | ${r.p99} | ${sqlite[name]?.p50 ?? ''} | ${sqlite[name]?.p99 ?? ''} |`,
      ),
      '',
      `Seeding took ${stats.seedSeconds} s; peak RSS of the server ${stats.serverPeakRssMb} MiB.`,
    );
  }

  if (SCENARIOS.has('stalled')) {
    mkdirSync(join(work, 'stalled'));
    const stalled = await stalledScenario(join(work, 'stalled'));
    results.stalled = stalled;
    report.push(
      '',
      `### ${stalled.stalled} stalled bodies (headers and part of a body, then silence)`,
      '',
      `Opened in ${stalled.openSeconds} s; open while the normal client was measured: ${stalled.openWhileMeasuring.before} before, ${stalled.openWhileMeasuring.after} after.`,
      '',
      '| Normal client (E7, one at a time) | p50 ms | p99 ms | max ms |',
      '|---|---:|---:|---:|',
      `| alone | ${stalled.unloaded.p50} | ${stalled.unloaded.p99} | ${stalled.unloaded.max} |`,
      `| with the stalled connections open | ${stalled.loaded.p50} | ${stalled.loaded.p99} | ${stalled.loaded.max} |`,
      '',
      `Stalled connections: ${stalled.answered408Json} answered 408 JSON, ${stalled.otherAnswers} other answers, ${stalled.fiveXx} 5xx, ${stalled.notJson} not JSON, ${stalled.noAnswer} without an answer; all closed ${stalled.allClosedAfterSeconds} s after the first opened.`,
    );
  }

  if (SCENARIOS.has('flood')) {
    mkdirSync(join(work, 'flood'));
    const flood = await floodScenario(join(work, 'flood'));
    results.flood = flood;
    const row = (name: string, run: typeof flood.limited) =>
      `| ${name} | ${run.unloaded.p50} / ${run.unloaded.p99} | ${run.loaded.p50} / ${run.loaded.p99} | ${run.after.p50} / ${run.after.p99} | ${run.ratio}× | ${run.ratioAfter}× | ${run.twin.during?.p99} | ${run.ratioTwin}× (${run.ratioTwinBefore}×, ${run.ratioTwinAfter}×) | ${run.flood.sent} | ${JSON.stringify(run.flood.statuses)} | ${run.flood.fiveXx} | ${run.flood.notJsonError} |`;
    report.push(
      '',
      '### One key floods get-events?limit=200 (50 connections); another key sends E7 one at a time',
      '',
      '| Server | alone before p50 / p99 ms | during flood p50 / p99 ms | alone after p50 / p99 ms | p99 ratio (during / before) | p99 ratio (during / after) | twin server during flood p99 ms | p99 ratio to the twin (before, after the flood) | flood requests | flood answers | 5xx | non-JSON errors |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|',
      row('default rate limits', flood.limited),
      row('no rate limits (reference)', flood.unlimited),
    );
  }

  if (SCENARIOS.has('bodies')) {
    mkdirSync(join(work, 'bodies'));
    const bodies = await bodiesScenario(join(work, 'bodies'));
    results.bodies = bodies;
    report.push(
      '',
      `### ${bodies.clients} clients announce a 1 GiB body with a wrong key and send it, again and again for ${bodies.seconds} s (${bodies.connections} connections)`,
      '',
      '| Normal client (E7, one at a time) | p50 ms | p99 ms | max ms |',
      '|---|---:|---:|---:|',
      `| alone | ${bodies.unloaded.p50} | ${bodies.unloaded.p99} | ${bodies.unloaded.max} |`,
      `| while the bodies are pushed | ${bodies.loaded.p50} | ${bodies.loaded.p99} | ${bodies.loaded.max} |`,
      '',
      `Answers: ${bodies.answered401Json} 401 JSON, ${bodies.fiveXx} 5xx, ${bodies.notJson} not JSON, ${bodies.noAnswer} without an answer; ${bodies.closedByServer} connections closed by the server; the clients got ${bodies.sentMiB} MiB of the ${bodies.announcedMiB} MiB announced into the sockets' buffers, and the server read ${bodies.serverReadMiB} MiB in all (its \`rchar\`, the normal client's requests included).`,
    );
  }

  if (SCENARIOS.has('tenants')) {
    mkdirSync(join(work, 'tenants'));
    const tenants = await tenantsScenario(
      join(work, 'tenants'),
      BENCH_DATABASE_URL
        ? (run) => withBenchDatabase(BENCH_DATABASE_URL, run, 'tenantsbench')
        : undefined,
    );
    results.tenants = tenants;
    report.push(...tenantsReport(tenants));
  }
  if (SCENARIOS.has('benchmarks')) {
    const parsing = await benchmarkParseScenario();
    results.benchmarkParsing = parsing.results;
    report.push(...parsing.report);
  }

  if (SCENARIOS.has('tests')) {
    mkdirSync(join(work, 'tests'));
    const databasePath = join(work, 'tests', 'stats.db');
    const scale = testsScaleOf('sqlite');
    const run = await testsScenario(
      serverEnv(databasePath),
      scale,
      (projectId) => seedTestsSqlite(databasePath, projectId, scale),
      () => sqliteBytesPerResult(join(work, 'tests')),
    );
    results.tests = run;
    report.push(...testsReport('SQLite', run));
  }
  if (SCENARIOS.has('tests') && BENCH_DATABASE_URL) {
    const scale = testsScaleOf('postgres');
    const run = await withBenchDatabase(
      BENCH_DATABASE_URL,
      (url) => {
        const env = { ...serverEnv(''), DATABASE_URL: url };
        delete (env as Partial<typeof env>).DATABASE_PATH;
        delete (env as Partial<typeof env>).DURABILITY;
        return testsScenario(
          env,
          scale,
          (projectId) => seedTestsPostgres(url, projectId, scale),
          () => postgresBytesPerResult(url),
        );
      },
      'testsbench',
    );
    results.postgresTests = run;
    report.push(...testsReport('PostgreSQL', run));
  }

  if (SCENARIOS.has('compare')) {
    const runs: Record<string, CompareRun> = {};
    mkdirSync(join(work, 'compare'));
    // BENCH_COMPARE_BACKENDS=postgres runs PostgreSQL alone (a second run on a shared machine).
    const backends = process.env.BENCH_COMPARE_BACKENDS ?? 'sqlite,postgres';
    if (backends.includes('sqlite')) {
      runs.SQLite = await compareOnSqlite(join(work, 'compare'), COMPARE_SIZE, QUERY_SAMPLES);
    }
    if (BENCH_DATABASE_URL && backends.includes('postgres')) {
      runs.PostgreSQL = await withBenchDatabase(
        BENCH_DATABASE_URL,
        (url) => compareOnPostgres(url, COMPARE_SIZE, QUERY_SAMPLES),
        'comparebench',
      );
    }
    results.compare = runs;
    report.push(...compareReport(runs));
  }

  if (SCENARIOS.has('replica')) {
    const run = await replicaScenario();
    results.replica = run;
    report.push(...replicaReport(run));
  }

  if (SCENARIOS.has('verdicts')) {
    const verdicts = changePointScenario();
    results.verdicts = verdicts.results;
    report.push(...verdicts.report);
  }

  process.stdout.write(`${report.join('\n')}\n`);
  writeFileSync(
    'bench/results.json',
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: {
          cpus: cpus().length,
          model: cpus()[0]?.model,
          memoryGiB: Math.round(totalmem() / 2 ** 30),
          node: process.version,
        },
        settings: {
          rounds: ROUNDS,
          seconds: SECONDS,
          connections: CONNECTIONS,
          seededEvents: SEEDED_EVENTS,
          historyRecords: HISTORY_RECORDS,
          querySamples: QUERY_SAMPLES,
          durability: DURABILITY,
          scenarios: [...SCENARIOS],
        },
        ...results,
        ratios,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
