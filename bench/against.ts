import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { withBenchDatabase } from './bench-database.js';
import {
  API_KEY,
  ingestBodies,
  type Measurement,
  measure,
  serverEnv,
  type Target,
} from './load.js';
import { median } from './median.js';
import { type Service, startProcess, stop } from './processes.js';

/**
 * `npm run bench:against -- <git ref>` (or `npm run bench -- --against <git ref>`): the ingest
 * scenarios of this tree against those of another commit, in the same run. The ref is exported
 * (`git archive`) into a directory of its own under the system's temporary directory, installed
 * (`npm ci --prefer-offline`, or this tree's node_modules with BENCH_AGAINST_REUSE_MODULES=1) and
 * built once; later runs against the same commit reuse it. Both servers run side by side, each on
 * a new SQLite file, with a bare Fastify route beside them; every round drives every target once,
 * in an order that rotates from round to round, so that a machine whose speed drifts (it is
 * shared) moves both builds alike. Each round's ratio is taken within the round; the report gives
 * the medians of the rounds, the median ratio and its spread (lowest and highest round).
 *
 * Knobs: BENCH_ROUNDS (4), BENCH_SECONDS (5), BENCH_DURABILITY (full), BENCH_AGAINST_TARGETS
 * (`e7,e8`, add `e7i` for E7 with an Idempotency-Key), BENCH_CPU_PROF=<dir> (both servers run with
 * `node --cpu-prof`, profiles in <dir>/ref and <dir>/ours), BENCH_INFLUX_URL (an InfluxDB 1.x to
 * write the same single point per request to, as a peer: bench/influx-peer.sh starts one, and
 * prints its pid for BENCH_INFLUX_PID, with which its CPU is counted and its background work is
 * waited for like a server's),
 * BENCH_AGAINST_CEILING=1 (E8 of `two-thread-ceiling.ts` too, a yardstick of two threads),
 * BENCH_DATABASE_URL (this tree's E7 and E8 again on PostgreSQL, on a database of their own).
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const DURABILITY = process.env.BENCH_DURABILITY ?? 'full';
const WANTED = new Set(
  (process.env.BENCH_AGAINST_TARGETS ?? 'e7,e8').split(',').map((t) => t.trim()),
);
const CPU_PROF = process.env.BENCH_CPU_PROF;
const INFLUX_URL = process.env.BENCH_INFLUX_URL;
const CEILING = process.env.BENCH_AGAINST_CEILING === '1';
const CEILING_NAME = 'E8 two-thread ceiling';
const INFLUX_NAME = 'InfluxDB 1.6 write';
const DATABASE_URL = process.env.BENCH_DATABASE_URL;
/** What every ingest target sends beside its body: JSON, with the bench's key. */
const INGEST_HEADERS = { 'content-type': 'application/json', 'x-api-key': API_KEY };

const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();

/** The ref exported, installed and built in a directory of its own (kept for the next run). */
function buildRef(ref: string): { dir: string; sha: string } {
  const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = join(tmpdir(), `ci-stats-against-${sha.slice(0, 12)}`);
  const entry = join(dir, 'build', 'server', 'main.js');
  if (existsSync(entry)) return { dir, sha };
  process.stderr.write(`building ${ref} (${sha.slice(0, 12)}) in ${dir}\n`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C "${dir}"`], { stdio: 'inherit' });
  const run = (command: string, args: string[]) =>
    execFileSync(command, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  if (process.env.BENCH_AGAINST_REUSE_MODULES === '1') {
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
  } else {
    run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund']);
  }
  try {
    run('npm', ['run', '--silent', 'build']);
  } catch (error) {
    // An older tree type-checked against this tree's modules may complain and still emit.
    if (!existsSync(entry)) throw error;
    process.stderr.write(`${ref}: the build reported errors; its server was emitted, using it\n`);
  }
  return { dir, sha };
}

interface Server {
  service: Service;
  projectId: string;
}

/** A server of either build on a new SQLite file (or PostgreSQL at `databaseUrl`). */
async function startServer(
  label: string,
  cwd: string,
  work: string,
  databaseUrl?: string,
): Promise<Server> {
  const env: Record<string, string> = serverEnv(join(work, `${label}.db`), DURABILITY);
  if (databaseUrl) {
    delete env.DATABASE_PATH;
    delete env.DURABILITY;
    env.DATABASE_URL = databaseUrl;
  }
  const profile = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROF, label)}`] : [];
  const service = await startProcess([...profile, join(cwd, 'build/server/main.js')], env, cwd);
  const projectId = /project id:\s+(\S+)/.exec(service.stdout)?.[1];
  if (!projectId) throw new Error(`${label}: no project id in its banner`);
  return { service, projectId };
}

/** E7 and E8 (and E7 with an Idempotency-Key) of one server, named after its build. */
function ingestTargets(label: string, server: Server): Target[] {
  const bodies = ingestBodies(server.projectId);
  const url = server.service.url;
  const all: [string, Target][] = [
    [
      'e7',
      {
        name: `E7 ${label}`,
        url: `${url}/stats/ingest-events`,
        method: 'POST',
        body: bodies.event,
        headers: INGEST_HEADERS,
      },
    ],
    [
      'e8',
      {
        name: `E8 ${label}`,
        url: `${url}/stats/ingest-metrics`,
        method: 'POST',
        body: bodies.metric,
        headers: INGEST_HEADERS,
      },
    ],
    [
      'e7i',
      {
        name: `E7+key ${label}`,
        url: `${url}/stats/ingest-events`,
        method: 'POST',
        body: bodies.event,
        headers: INGEST_HEADERS,
        idempotent: true,
      },
    ],
  ];
  return all.filter(([id]) => WANTED.has(id)).map(([, target]) => target);
}

/** The same single record as E8 to InfluxDB 1.x: one point per request over HTTP. */
function influxTarget(url: string): Target {
  return {
    name: INFLUX_NAME,
    url: `${url}/write?db=bench&precision=ms`,
    method: 'POST',
    // E8's payload as one point: the branch a tag, its numbers and flags fields.
    body: 'ci,project=bench,branch=main duration_ms=1234,ok=true,commit="0123456789abcdef"',
    headers: { 'content-type': 'text/plain' },
  };
}

/**
 * `two-thread-ceiling.ts` on a file this tree's server created (and its project), with E8's
 * request: the server is started once on the file, then stopped, so that the yardstick writes to
 * the same schema.
 */
async function startCeiling(work: string): Promise<{ service: Service; target: Target }> {
  const seeded = await startServer('ceiling', process.cwd(), work);
  await stop(seeded.service);
  const service = await startProcess(['build/bench/two-thread-ceiling.js'], {
    DATABASE_PATH: join(work, 'ceiling.db'),
    BOOTSTRAP_API_KEY: API_KEY,
  });
  const target: Target = {
    name: CEILING_NAME,
    url: `${service.url}/stats/ingest-metrics`,
    method: 'POST',
    body: ingestBodies(seeded.projectId).metric,
    headers: INGEST_HEADERS,
  };
  return { service, target };
}

/** Requests each target answered, warm-up included (to put CPU profiles per request). */
const served = new Map<string, number>();

/** The server process behind each target (none for a peer such as InfluxDB). */
const pids = new Map<string, number>();

/** CPU time a process has used so far (user + system, Linux /proc), in µs. */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * Each target's server CPU per request in a round: unlike req/s it hardly moves when other work
 * shares the machine, so it tells two builds apart on a busy one too (10 ms tick resolution).
 */
const cpuPerRequest = new Map<string, number[]>();

/** Each target's seconds after its rounds until its server was idle again (median later). */
const settleSeconds = new Map<string, number[]>();

/**
 * Waits until the process has been idle for a quarter of a second (under 8 % of a core), up to
 * two minutes, so that work a server put off during a round (background judging of the round's
 * records) is done before the next target's round, not in it, and is counted: the CPU it takes is
 * added to the round's CPU per request, and its length reported.
 */
async function settle(pid: number): Promise<number> {
  const start = performance.now();
  for (;;) {
    const before = cpuMicros(pid);
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (cpuMicros(pid) - before <= 20_000 || performance.now() - start > 120_000) break;
  }
  return (performance.now() - start) / 1000;
}

/** Every target once per round, the order rotating; each round's figures kept. */
async function paired(targets: Target[]): Promise<Map<string, Measurement[]>> {
  for (const target of targets) served.set(target.name, (await measure(target, 2)).total);
  const runs = new Map<string, Measurement[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length] as Target);
    for (const target of order) {
      const pid = pids.get(target.name);
      const cpuBefore = pid ? cpuMicros(pid) : 0;
      const m = await measure(target, SECONDS);
      if (pid) {
        const seconds = await settle(pid);
        settleSeconds.set(target.name, [...(settleSeconds.get(target.name) ?? []), seconds]);
        const perRequest = (cpuMicros(pid) - cpuBefore) / Math.max(m.total, 1);
        cpuPerRequest.set(target.name, [...(cpuPerRequest.get(target.name) ?? []), perRequest]);
      }
      runs.get(target.name)?.push(m);
      served.set(target.name, (served.get(target.name) ?? 0) + m.total);
      process.stderr.write(
        `round ${round + 1} ${target.name}: ${m.rps} req/s p50 ${m.p50} ms p99 ${m.p99} ms (load ${loadavg()[0]?.toFixed(1)})\n`,
      );
    }
  }
  return runs;
}

const fixed = (n: number, digits = 2) => n.toFixed(digits);

/** Median, lowest and highest of the per-round ratios a / b. */
function ratio<T>(a: T[], b: T[], of: (m: T) => number) {
  const ratios = a.map((m, i) => of(m) / Math.max(of(b[i] as T), 1e-9));
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
}

const spread = (r: ReturnType<typeof ratio>) =>
  `${fixed(r.median)}× (${fixed(r.low)}–${fixed(r.high)})`;

export async function against(ref: string): Promise<void> {
  const { dir, sha } = buildRef(ref);
  const work = mkdtempSync(join(tmpdir(), 'ci-stats-against-run-'));
  const started: Service[] = [];
  const loadBefore = loadavg();
  try {
    const refServer = await startServer('ref', dir, work);
    started.push(refServer.service);
    const ours = await startServer('ours', process.cwd(), work);
    started.push(ours.service);
    const bare = await startProcess(['build/bench/reference-server.js'], { PAGE_BYTES: '2000' });
    started.push(bare);
    const bareTarget: Target = {
      name: 'bare route',
      url: `${bare.url}/ingest`,
      method: 'POST',
      body: ingestBodies(ours.projectId).event,
      headers: INGEST_HEADERS,
    };
    const refTargets = ingestTargets('ref', refServer);
    const ourTargets = ingestTargets('ours', ours);
    const pidOf = (server: Service) => server.child.pid as number;
    pids.set(bareTarget.name, pidOf(bare));
    for (const t of refTargets) pids.set(t.name, pidOf(refServer.service));
    for (const t of ourTargets) pids.set(t.name, pidOf(ours.service));
    const extra: Target[] = INFLUX_URL ? [influxTarget(INFLUX_URL)] : [];
    const influxPid = Number(process.env.BENCH_INFLUX_PID);
    if (INFLUX_URL && influxPid > 0) pids.set(INFLUX_NAME, influxPid);
    if (CEILING) {
      const ceiling = await startCeiling(work);
      started.push(ceiling.service);
      pids.set(CEILING_NAME, pidOf(ceiling.service));
      // Before the peer: in rounds right after InfluxDB's, before the tool waited for it to be
      // idle, the ceiling lost a fifth (BENCHMARKS.md); its writer needs the other core.
      extra.unshift(ceiling.target);
    }
    const run = async (postgres?: Server) => {
      const pgTargets = postgres ? ingestTargets('ours on PostgreSQL', postgres) : [];
      for (const t of pgTargets) pids.set(t.name, (postgres as Server).service.child.pid as number);
      // Each build's run of a scenario next to the other's, so that they meet the same moment.
      const pairs = refTargets.flatMap((target, i) => [target, ourTargets[i] as Target]);
      return paired([bareTarget, ...pairs, ...pgTargets, ...extra]);
    };
    const runs = DATABASE_URL
      ? await withBenchDatabase(
          DATABASE_URL,
          async (url) => {
            const server = await startServer('ours-postgres', process.cwd(), work, url);
            try {
              return await run(server);
            } finally {
              await stop(server.service);
            }
          },
          'againstbench',
        )
      : await run();
    const loadAfter = loadavg();
    const of = (name: string) => runs.get(name) ?? [];
    const rps = (m: Measurement) => m.rps;
    const p99 = (m: Measurement) => m.p99;
    const cpuOf = (name: string) => {
      const list = cpuPerRequest.get(name);
      return list ? Math.round(median(list)) : '';
    };
    const settleOf = (name: string) => {
      const list = settleSeconds.get(name);
      return list ? fixed(median(list), 1) : '';
    };
    const lines = [
      `### ${git('rev-parse', '--short=7', 'HEAD')}${git('status', '--porcelain') ? ' (with uncommitted changes)' : ''} against ${ref} (${sha.slice(0, 7)})`,
      '',
      `${ROUNDS} paired rounds × ${SECONDS} s per target, 50 connections, DURABILITY=${DURABILITY}, ${cpus().length} CPUs, load average ${fixed(loadBefore[0] ?? 0, 1)} before and ${fixed(loadAfter[0] ?? 0, 1)} after. Medians of the rounds; ratios taken within each round (median, and lowest–highest round).`,
      '',
      '| Target | req/s (each round) | median req/s | p99 ms | non-2xx + errors | vs bare route req/s | p99 vs bare | server CPU µs per request | s until idle after a round |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const [name, list] of runs) {
      const vsBare = name === bareTarget.name ? undefined : ratio(list, of(bareTarget.name), rps);
      const p99VsBare = ratio(list, of(bareTarget.name), p99);
      lines.push(
        `| ${name} | ${list.map(rps).join(' · ')} | ${Math.round(median(list.map(rps)))} | ${median(list.map(p99))} | ${list.reduce((n, m) => n + m.non2xx + m.errors, 0)} | ${vsBare ? spread(vsBare) : ''} | ${vsBare ? fixed(p99VsBare.median) : ''} | ${cpuOf(name)} | ${settleOf(name)} |`,
      );
    }
    lines.push(
      '',
      '| This tree ÷ ref | req/s | p99 | server CPU per request |',
      '|---|---:|---:|---:|',
    );
    for (const ourTarget of ourTargets) {
      const refName = ourTarget.name.replace(/ ours$/, ' ref');
      const cpu = (name: string) => cpuPerRequest.get(name) ?? [];
      const cpuRatio = ratio(cpu(ourTarget.name), cpu(refName), (micros) => micros);
      lines.push(
        `| ${ourTarget.name.replace(/ ours$/, '')} | ${spread(ratio(of(ourTarget.name), of(refName), rps))} | ${spread(ratio(of(ourTarget.name), of(refName), p99))} | ${spread(cpuRatio)} |`,
      );
    }
    if (CEILING) {
      lines.push('', '| The two-thread ceiling ÷ | req/s | p99 |', '|---|---:|---:|');
      for (const target of [...refTargets, ...ourTargets].filter((t) => t.name.startsWith('E8'))) {
        lines.push(
          `| ${target.name} | ${spread(ratio(of(CEILING_NAME), of(target.name), rps))} | ${spread(ratio(of(CEILING_NAME), of(target.name), p99))} |`,
        );
      }
    }
    if (INFLUX_URL) {
      lines.push('', '| ÷ InfluxDB (same rounds) | req/s |', '|---|---:|');
      const ceiling = CEILING ? [CEILING_NAME] : [];
      for (const name of [...refTargets, ...ourTargets].map((t) => t.name).concat(ceiling)) {
        lines.push(`| ${name} | ${spread(ratio(of(name), of(INFLUX_NAME), rps))} |`);
      }
    }
    if (DATABASE_URL) {
      lines.push('', '| PostgreSQL ÷ SQLite (this tree, same rounds) | req/s |', '|---|---:|');
      for (const target of ourTargets) {
        const pg = target.name.replace(/ ours$/, ' ours on PostgreSQL');
        lines.push(
          `| ${target.name.replace(/ ours$/, '')} | ${spread(ratio(of(pg), of(target.name), rps))} |`,
        );
      }
    }
    lines.push(
      '',
      `Requests answered, warm-ups included: ${[...served].map(([name, n]) => `${name} ${n}`).join(', ')}.`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const service of started) await stop(service).catch(() => 0);
    rmSync(work, { recursive: true, force: true });
  }
}

/** `node build/bench/against.js <ref>` (bench/run.ts hands `--against <ref>` here too). */
export async function againstFromArgs(args: string[]): Promise<void> {
  const at = args.indexOf('--against');
  const ref = at >= 0 ? args[at + 1] : args[0];
  if (!ref || ref.startsWith('-')) {
    process.stderr.write('usage: npm run bench:against -- <git ref>\n');
    process.exit(2);
  }
  await against(ref);
}

if (import.meta.url === `file://${resolve(process.argv[1] ?? '')}`) {
  await againstFromArgs(process.argv.slice(2));
}
