import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { seedEvents } from './seed.js';

/**
 * `npm run bench`: the production server against a bare Fastify route, in the same run.
 * Scenario 1: E7, E8 and E6 on a new database, alternating with the reference for several rounds.
 * Scenario 2: E7 again on a database that already holds a million events.
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;
const SEEDED_EVENTS = Number(process.env.BENCH_SEEDED_EVENTS ?? 1_000_000);
const API_KEY = 'bench-api-key-0123456789abcdefghijklmnopqrstuvwxyz';
/** The server's DURABILITY; `full`, the default, is what the targets are about. */
const DURABILITY = process.env.BENCH_DURABILITY ?? 'full';

interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  headers: Record<string, string>;
  /** Send a fresh Idempotency-Key with every request, as the Action does. */
  idempotent?: boolean;
}

interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

interface Service {
  child: ChildProcess;
  url: string;
  stdout: string;
}

async function startProcess(args: string[], env: Record<string, string>): Promise<Service> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', () => {
      const match = /(?:listening|Server listening at) (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  return { child, url, stdout };
}

async function stop(service: Service): Promise<number> {
  const peak = peakRssMb(service.child.pid);
  service.child.kill('SIGTERM');
  await once(service.child, 'exit');
  return peak;
}

/** The process's high-water mark of resident memory (Linux /proc), in MiB. */
function peakRssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function measure(target: Target, seconds = SECONDS): Promise<Measurement> {
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
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

function summarise(runs: Measurement[]) {
  return {
    rps: Math.round(median(runs.map((r) => r.rps))),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

/** Runs every target once per round, rotating the order, after a short warm-up of each. */
async function rounds(targets: Target[]): Promise<Record<string, ReturnType<typeof summarise>>> {
  for (const target of targets) await measure(target, 2);
  const runs = new Map<string, Measurement[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length] as Target);
    for (const target of order) {
      const m = await measure(target);
      runs.get(target.name)?.push(m);
      process.stderr.write(
        `round ${round + 1} ${target.name}: ${m.rps} req/s p50 ${m.p50} ms p99 ${m.p99} ms\n`,
      );
    }
  }
  return Object.fromEntries([...runs].map(([name, list]) => [name, summarise(list)]));
}

function targetsFor(server: string, reference: string, projectId: string) {
  const payload = { duration_ms: 1234, ok: true, branch: 'main', commit: '0123456789abcdef' };
  const eventBody = JSON.stringify({
    projectId,
    eventType: 'build',
    description: 'bench run',
    payload,
    color: 65280,
  });
  const metricBody = JSON.stringify({ projectId, payload });
  const json = { 'content-type': 'application/json', 'x-api-key': API_KEY };
  return {
    reference: {
      name: 'reference',
      url: `${reference}/ingest`,
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

async function scenario(dir: string, seed: number, names: (keyof ReturnType<typeof targetsFor>)[]) {
  const databasePath = join(dir, 'stats.db');
  const env = {
    DATABASE_PATH: databasePath,
    BOOTSTRAP_API_KEY: API_KEY,
    PORT: '0',
    LOG_LEVEL: 'info',
    DURABILITY,
  };
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
  const reference = await startProcess(['build/bench/reference-server.js'], {});
  const targets = targetsFor(server.url, reference.url, projectId);
  const results = await rounds(names.map((name) => targets[name]));
  const serverPeakRssMb = await stop(server);
  const referencePeakRssMb = await stop(reference);
  return { results, serverPeakRssMb, referencePeakRssMb };
}

const work = mkdtempSync(join(tmpdir(), 'ci-stats-bench-'));
try {
  mkdirSync(join(work, 'empty'));
  mkdirSync(join(work, 'seeded'));
  const empty = await scenario(join(work, 'empty'), 0, [
    'reference',
    'e7',
    'e8',
    'e6',
    'e7idempotent',
  ]);
  const seeded = await scenario(join(work, 'seeded'), SEEDED_EVENTS, ['reference', 'e7']);

  const e7Empty = empty.results['E7 ingest-events']?.rps ?? 0;
  const e7Seeded = seeded.results['E7 ingest-events']?.rps ?? 0;
  const report = [
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    `${ROUNDS} rounds × ${SECONDS} s per target, ${CONNECTIONS} connections, medians of the rounds; server DURABILITY=${DURABILITY}.`,
    '',
    table('New database', empty.results, 'reference'),
    '',
    table(
      `${SEEDED_EVENTS.toLocaleString('en')} events already stored`,
      seeded.results,
      'reference',
    ),
    '',
    `E7 with ${SEEDED_EVENTS.toLocaleString('en')} events stored: ${((e7Seeded / e7Empty) * 100).toFixed(1)} % of the new-database figure.`,
    `Peak RSS of the server: ${empty.serverPeakRssMb} MiB (new database), ${seeded.serverPeakRssMb} MiB (seeded); reference: ${empty.referencePeakRssMb} MiB.`,
  ].join('\n');
  process.stdout.write(`${report}\n`);
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
          durability: DURABILITY,
        },
        empty,
        seeded,
        ratios: {
          e7VsReference: e7Empty / (empty.results.reference?.rps ?? 1),
          e8VsReference:
            (empty.results['E8 ingest-metrics']?.rps ?? 0) / (empty.results.reference?.rps ?? 1),
          e7SeededVsEmpty: e7Seeded / e7Empty,
        },
      },
      null,
      2,
    )}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
