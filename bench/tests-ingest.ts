/**
 * A run of 100,000 test cases end to end (issue 25, "Scale and speed"): `node
 * build/bench/tests-ingest.js` writes a JUnit report of BENCH_TEST_CASES cases (100,000), then,
 * BENCH_TEST_INGEST_RUNS times (5), starts the built server on a new SQLite file and runs the
 * bundled CLI (dist/cli.js, as a pipeline runs it) as a child process: `ci-stats report --junit
 * <file>`, timed from its spawn to its exit after the last batch's acknowledgement. Also the
 * server's CPU time over that run (its part; /proc), and the median of the runs. With
 * BENCH_DATABASE_URL, the same on PostgreSQL, each run on a database of its own.
 *
 * Then the side effect on other projects: E7 and E8 of another project (50 connections, as the
 * ingest scenario), BENCH_ROUNDS (4) paired rounds of BENCH_SECONDS (5) each, alone and while the
 * CLI sends the run again and again (a new build id each time, so every batch is stored), the
 * order alternating from round to round; the ratio is taken within each round (target ≥ 0.90).
 * BENCH_TEST_INGEST_SIDE=0 leaves that part out. Prints the rows of BENCHMARKS.md and one JSON line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, createBenchProject } from './bench-account.js';
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

const CASES = Number(process.env.BENCH_TEST_CASES ?? 100_000);
const RUNS = Number(process.env.BENCH_TEST_INGEST_RUNS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SIDE = process.env.BENCH_TEST_INGEST_SIDE !== '0';
const DATABASE_URL = process.env.BENCH_DATABASE_URL;
const CPU_PROF = process.env.BENCH_CPU_PROF;
/**
 * The CLI bundles to time (comma-separated; `dist/cli.js` by default): with two, each run of one
 * is followed by a run of the other on a database of its own (another build's bundle, e.g. the
 * previous commit's dist/ copied to a folder, against this one at the same moments).
 */
const CLI_ENTRIES = (process.env.BENCH_CLI_ENTRIES ?? 'dist/cli.js').split(',');
const CLI_ENTRY = CLI_ENTRIES[0] as string;
const SERVER_ENTRY = process.env.BENCH_SERVER_ENTRY ?? 'build/server/main.js';

/**
 * The report: suites of 200 cases in classes of 20, about 1 % failed (with a message and a
 * stack), 2 % skipped, the rest passed, each with a time; names as long as real ones.
 */
export function junitReport(cases: number): string {
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n'];
  for (let suite = 0; suite * 200 < cases; suite += 1) {
    const inSuite = Math.min(200, cases - suite * 200);
    parts.push(`<testsuite name="com.example.module${suite}.ServiceTest" tests="${inSuite}">\n`);
    for (let i = 0; i < inSuite; i += 1) {
      const n = suite * 200 + i;
      const time = (((n * 7919) % 2000) / 1000).toFixed(3);
      const open = `<testcase classname="com.example.module${suite}.Service${Math.floor(i / 20)}Test" name="handles case ${n} with input [${n % 13}]" time="${time}"`;
      if (n % 97 === 3) {
        parts.push(
          `${open}><failure message="expected ${n} to equal ${n + 1}" type="AssertionError">AssertionError: expected ${n} to equal ${n + 1}\n    at Service${i}.check (src/module${suite}/service.ts:${n % 400}:13)\n    at run (node:internal/test:1:1)</failure></testcase>\n`,
        );
      } else if (n % 50 === 7) {
        parts.push(`${open}><skipped/></testcase>\n`);
      } else {
        parts.push(`${open}/>\n`);
      }
    }
    parts.push('</testsuite>\n');
  }
  parts.push('</testsuites>\n');
  return parts.join('');
}

/** CPU time a process has used so far (user + system, Linux /proc), in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Stand {
  server: Service;
  /** The project the tests go to (an account of its own). */
  tests: { apiKey: string; projectId: string };
  /** The other project (the bootstrap key's), whose E7 and E8 are measured. */
  otherProjectId: string;
}

async function serve(database: string, label: string): Promise<Stand> {
  const env: Record<string, string> = { ...serverEnv(database, 'full'), ADMIN_TOKEN: ADMIN };
  if (database.startsWith('postgres')) {
    delete env.DATABASE_PATH;
    delete env.DURABILITY;
    env.DATABASE_URL = database;
  }
  const profile = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, label)}`] : [];
  const server = await startProcess([...profile, SERVER_ENTRY], env);
  const otherProjectId = /project id:\s+(\S+)/.exec(server.stdout)?.[1];
  if (!otherProjectId) throw new Error('no project id in the server banner');
  const tests = await createBenchProject(server.url);
  return {
    server,
    tests,
    otherProjectId,
  };
}

let builds = 0;

const CPU_AT_EXIT = `import { writeSync } from 'node:fs';
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  writeSync(2, '\\ncli-cpu-ms ' + Math.round((user + system) / 1000) + '\\n');
});`;

/**
 * The CLI as a pipeline runs it: spawned, to its exit (its wall and CPU time); throws unless the
 * run was stored.
 */
async function runCli(
  stand: Stand,
  file: string,
  label: string,
  entry: string = CLI_ENTRY,
): Promise<{ ms: number; cliCpuMs: number }> {
  builds += 1;
  const profile = CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, `cli-${label}`)}`]
    : [];
  // The CLI's own CPU time, written to stderr as it exits (a child's is gone from /proc once
  // reaped).
  const cpuAtExit = `--import=data:text/javascript,${encodeURIComponent(CPU_AT_EXIT)}`;
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [...profile, cpuAtExit, entry, 'report', '--junit', file, '--json'],
    {
      env: {
        PATH: process.env.PATH,
        CI_STATS_API_KEY: stand.tests.apiKey,
        CI_STATS_BASE_URL: stand.server.url,
        CI_STATS_PROJECT_ID: stand.tests.projectId,
        GITLAB_CI: 'true',
        CI_PROJECT_PATH: 'group/app',
        CI_PIPELINE_ID: String(4000 + builds),
        CI_JOB_ID: String(builds),
        CI_COMMIT_SHA: `c0ffee${builds}`,
        CI_COMMIT_BRANCH: 'main',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  const ms = performance.now() - started;
  const out = JSON.parse(stdout || '{}') as {
    ok?: boolean;
    records?: { kind: string; stored: boolean; id: string | null }[];
  };
  const tests = out.records?.find((r) => r.kind === 'tests');
  if (code !== 0 || out.ok !== true || !tests?.stored || !tests.id) {
    throw new Error(`the CLI exited with ${code}:\n${stdout}\n${stderr}`);
  }
  return { ms, cliCpuMs: Number(/cli-cpu-ms (\d+)/.exec(stderr)?.[1] ?? Number.NaN) };
}

/** The run the CLI sent, read back: every case counted (outside the timing). */
async function checkStored(stand: Stand) {
  const res = await fetch(
    `${stand.server.url}/stats/get-test-runs?projectId=${stand.tests.projectId}`,
    { headers: { 'x-api-key': stand.tests.apiKey } },
  );
  const { runs } = (await res.json()) as {
    runs: { passed: number; failed: number; errors: number; skipped: number }[];
  };
  const stored = runs.map((r) => r.passed + r.failed + r.errors + r.skipped);
  if (stored.length !== 1 || stored[0] !== CASES) {
    throw new Error(`stored ${JSON.stringify(stored)} cases, not one run of ${CASES}`);
  }
}

type Run = { ms: number; cliCpuMs: number; serverCpuMs: number; load: number };

/** Runs of each CLI bundle, each on a new database (`withDatabase` makes it and removes it). */
async function endToEnd(
  backend: string,
  file: string,
  withDatabase: (i: number, work: (database: string) => Promise<Run>) => Promise<Run>,
) {
  const runs = new Map<string, Run[]>(CLI_ENTRIES.map((entry) => [entry, []]));
  for (let i = 0; i < RUNS; i += 1) {
    for (const [e, entry] of CLI_ENTRIES.entries()) {
      const run = await withDatabase(i * CLI_ENTRIES.length + e, async (database) => {
        const stand = await serve(database, `${backend}-${i}-${e}`);
        try {
          const pid = stand.server.child.pid as number;
          const cpuBefore = cpuMs(pid);
          const { ms, cliCpuMs } = await runCli(stand, file, `${backend}-${i}-${e}`, entry);
          const serverCpuMs = cpuMs(pid) - cpuBefore;
          await checkStored(stand);
          return {
            ms: Math.round(ms),
            cliCpuMs,
            serverCpuMs,
            load: Number((loadavg()[0] ?? 0).toFixed(1)),
          };
        } finally {
          await stop(stand.server);
        }
      });
      runs.get(entry)?.push(run);
      process.stderr.write(`${backend} ${entry} run ${i + 1}: ${JSON.stringify(run)}\n`);
    }
  }
  return [...runs].map(([entry, list]) => ({
    backend,
    entry,
    runs: list,
    medianMs: median(list.map((r) => r.ms)),
    medianServerCpuMs: median(list.map((r) => r.serverCpuMs)),
    medianCliCpuMs: median(list.map((r) => r.cliCpuMs)),
  }));
}

/**
 * E7 and E8 of the other project, alone and while the CLI sends the run over and over (started
 * before the measurement, so that the whole window has an ingest in progress), paired by round.
 */
async function sideEffect(backend: string, file: string, database: string) {
  const stand = await serve(database, `${backend}-side`);
  try {
    const bodies = ingestBodies(stand.otherProjectId);
    const headers = { 'content-type': 'application/json', 'x-api-key': API_KEY };
    const targets: Target[] = [
      {
        name: 'E7',
        url: `${stand.server.url}/stats/ingest-events`,
        method: 'POST',
        body: bodies.event,
        headers,
      },
      {
        name: 'E8',
        url: `${stand.server.url}/stats/ingest-metrics`,
        method: 'POST',
        body: bodies.metric,
        headers,
      },
    ];
    for (const target of targets) await measure(target, 2);
    const alone = new Map<string, Measurement[]>(targets.map((t) => [t.name, []]));
    const during = new Map<string, Measurement[]>(targets.map((t) => [t.name, []]));
    let cliRuns = 0;
    const cliMs: number[] = [];
    const withIngest = async (target: Target) => {
      let over = false;
      const loop = (async () => {
        while (!over) {
          cliMs.push((await runCli(stand, file, `${backend}-side`)).ms);
          cliRuns += 1;
        }
      })();
      // The CLI's start and its read of the report (about a second) come before its first batch.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const m = await measure(target, SECONDS);
      over = true;
      await loop;
      return m;
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const target of targets) {
        const order = round % 2 === 0 ? ['alone', 'during'] : ['during', 'alone'];
        for (const kind of order) {
          const m = kind === 'alone' ? await measure(target, SECONDS) : await withIngest(target);
          (kind === 'alone' ? alone : during).get(target.name)?.push(m);
          process.stderr.write(
            `${backend} round ${round + 1} ${target.name} ${kind}: ${m.rps} req/s p99 ${m.p99} ms (load ${loadavg()[0]?.toFixed(1)})\n`,
          );
        }
      }
    }
    return {
      backend,
      cliRuns,
      cliMedianMs: Math.round(median(cliMs)),
      targets: targets.map(({ name }) => {
        const a = alone.get(name) ?? [];
        const d = during.get(name) ?? [];
        const ratios = d.map((m, i) => m.rps / Math.max(a[i]?.rps ?? 1, 1));
        return {
          name,
          alone: a.map((m) => m.rps),
          during: d.map((m) => m.rps),
          aloneP99: median(a.map((m) => m.p99)),
          duringP99: median(d.map((m) => m.p99)),
          ratio: Number(median(ratios).toFixed(2)),
          low: Number(Math.min(...ratios).toFixed(2)),
          high: Number(Math.max(...ratios).toFixed(2)),
          errors: [...a, ...d].reduce((n, m) => n + m.non2xx + m.errors, 0),
        };
      }),
    };
  } finally {
    await stop(stand.server);
  }
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'tests-ingest-'));
  const loadBefore = loadavg();
  try {
    const file = join(work, 'junit.xml');
    writeFileSync(file, junitReport(CASES));
    const ends = await endToEnd('sqlite', file, (i, run) => run(join(work, `run-${i}.db`)));
    const sides = SIDE ? [await sideEffect('sqlite', file, join(work, 'side.db'))] : [];
    if (DATABASE_URL) {
      ends.push(
        ...(await endToEnd('postgres', file, (i, run) =>
          withBenchDatabase(DATABASE_URL, run, `testsingest${i}`),
        )),
      );
      if (SIDE) {
        sides.push(
          await withBenchDatabase(
            DATABASE_URL,
            (url) => sideEffect('postgres', file, url),
            'testsingestside',
          ),
        );
      }
    }
    const loadAfter = loadavg();
    const lines = [
      `${CASES.toLocaleString('en')} cases (${(readFileSync(file).length / 2 ** 20).toFixed(1)} MiB of JUnit), ${cpus().length} CPUs, load average ${loadBefore[0]?.toFixed(1)} before and ${loadAfter[0]?.toFixed(1)} after.`,
      '',
      '| Backend, CLI | CLI start to exit, each run (ms) | median (target 5,000 on SQLite) | CLI CPU, median (ms) | server CPU, median (ms) |',
      '|---|---|---:|---:|---:|',
      ...ends.map(
        (e) =>
          `| ${e.backend}, ${e.entry} | ${e.runs.map((r) => r.ms).join(' · ')} | ${e.medianMs} | ${e.medianCliCpuMs} | ${e.medianServerCpuMs} |`,
      ),
    ];
    if (sides.length > 0) {
      lines.push(
        '',
        `| Backend, other project's | req/s alone (each round) | req/s during an ingest | during ÷ alone, median (lowest–highest round; target ≥ 0.90) | p99 alone / during (ms) | non-2xx + errors |`,
        '|---|---|---|---:|---:|---:|',
      );
      for (const side of sides) {
        for (const t of side.targets) {
          lines.push(
            `| ${side.backend} ${t.name} | ${t.alone.join(' · ')} | ${t.during.join(' · ')} | ${t.ratio} (${t.low}–${t.high}) | ${t.aloneP99} / ${t.duringP99} | ${t.errors} |`,
          );
        }
        lines.push(
          `| ${side.backend}: CLI runs during the rounds | ${side.cliRuns}, median ${side.cliMedianMs} ms | | | | |`,
        );
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    process.stdout.write(
      `${JSON.stringify({ cases: CASES, ends, sides, loadBefore, loadAfter })}\n`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
