import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './median.js';

/**
 * npm run bench:step: the wall time of a whole reporting step (process start to exit, one POST to
 * a loopback fake), for our Action and CLI against the floor (bench/step-floor.js: node:http and
 * nothing else; step-floor.cjs the same in CommonJS, as our bundles are) and, when BENCH_DATADOG names its dist/index.js, masci/datadog's published bundle
 * (BENCH_PREVIOUS_ACTION adds an earlier build of our Action).
 * Paired runs: each round runs every target once, in an order that rotates; medians of the rounds.
 */

const ROUNDS = Number(process.env.BENCH_STEP_ROUNDS ?? 20);
const WARMUP = 2;

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = req.url?.startsWith('/api/')
      ? '{"status":"ok"}'
      : '{"message":"Event created successfully.","id":"0193aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"}';
    res.writeHead(req.url?.startsWith('/api/') ? 202 : 200, { 'content-type': 'application/json' });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const dir = mkdtempSync(join(tmpdir(), 'ci-stats-bench-step-'));
const outputFile = join(dir, 'output');
const summaryFile = join(dir, 'summary');

interface Target {
  name: string;
  args: string[];
  env: Record<string, string>;
}

const runner = {
  GITHUB_ACTIONS: 'true',
  GITHUB_REPOSITORY: 'octo-org/web-app',
  GITHUB_SHA: '0a1b2c3d4e5f60718293a4b5c6d7e8f901234567',
  GITHUB_REF: 'refs/heads/main',
  GITHUB_WORKFLOW: 'CI',
  GITHUB_JOB: 'build',
  GITHUB_RUN_ID: '1234',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_EVENT_NAME: 'push',
  GITHUB_OUTPUT: outputFile,
  GITHUB_STEP_SUMMARY: summaryFile,
};

/** The Action's inputs of a build event, as the runner passes them. */
const actionStep = {
  ...runner,
  'INPUT_API-KEY': 'k',
  'INPUT_BASE-URL': origin,
  'INPUT_PROJECT-ID': 'p',
  'INPUT_EVENT-TYPE': 'build',
  INPUT_STATUS: 'success',
};

const targets: Target[] = [
  {
    name: 'floor (node:http POST)',
    args: ['bench/step-floor.js'],
    env: { STEP_URL: `${origin}/stats/ingest-events`, STEP_KEY: 'k' },
  },
  {
    name: 'floor, CommonJS (step-floor.cjs)',
    args: ['bench/step-floor.cjs'],
    env: { STEP_URL: `${origin}/stats/ingest-events`, STEP_KEY: 'k' },
  },
  {
    name: 'our Action (dist/index.js)',
    args: ['dist/index.js'],
    env: actionStep,
  },
  // Issue 24: the same step (an event and a metric) without and with a benchmark file (the go
  // fixture: 11 results), so the difference is what reading benchmarks costs a step.
  {
    name: 'our Action, event + metric',
    args: ['dist/index.js'],
    env: { ...actionStep, INPUT_METRICS: '{"duration_ms": 1234}' },
  },
  {
    name: 'our Action, event + metric + benchmark-file',
    args: ['dist/index.js'],
    env: {
      ...actionStep,
      INPUT_METRICS: '{"duration_ms": 1234}',
      'INPUT_BENCHMARK-TOOL': 'go',
      'INPUT_BENCHMARK-FILE': 'test/reporter/fixtures/benchmarks/go-two-packages.txt',
    },
  },
  {
    name: 'our CLI (dist/cli.js)',
    args: ['dist/cli.js', 'report', '--event-type', 'build', '--status', 'success'],
    env: { ...runner, CI_STATS_API_KEY: 'k', CI_STATS_BASE_URL: origin, CI_STATS_PROJECT_ID: 'p' },
  },
];
// An earlier build of our Action (e.g. `git show <commit>:dist/index.js`), to see what changed.
const previous = process.env.BENCH_PREVIOUS_ACTION;
if (previous) {
  if (!existsSync(previous)) throw new Error(`BENCH_PREVIOUS_ACTION: no file ${previous}`);
  targets.push({ ...(targets[2] as Target), name: 'our Action, previous build', args: [previous] });
}
const datadog = process.env.BENCH_DATADOG;
if (datadog) {
  if (!existsSync(datadog)) throw new Error(`BENCH_DATADOG: no file ${datadog}`);
  targets.push({
    name: 'masci/datadog (published dist)',
    args: [datadog],
    env: {
      ...runner,
      'INPUT_API-KEY': 'k',
      'INPUT_API-URL': origin,
      INPUT_METRICS: '[]',
      INPUT_EVENTS:
        '- title: build\n  text: main is green\n  alert_type: info\n  tags: []\n  host: ci',
      'INPUT_SERVICE-CHECKS': '[]',
      INPUT_LOGS: '[]',
      'INPUT_LOG-API-URL': origin,
    },
  });
}

/** One run of a target: wall time from spawn to exit, in ms. */
async function time(target: Target): Promise<number> {
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, target.args, {
    env: { PATH: process.env.PATH, ...target.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const [code] = await once(child, 'exit');
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (code !== 0) throw new Error(`${target.name} exited with ${code}:\n${output}`);
  return ms;
}

const samples = new Map<string, number[]>(targets.map((t) => [t.name, []]));
try {
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(round + i) % targets.length] as Target;
      const ms = await time(target);
      if (round >= WARMUP) samples.get(target.name)?.push(ms);
    }
  }
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}

const medians = Object.fromEntries(targets.map((t) => [t.name, median(samples.get(t.name) ?? [])]));
const floor = medians[targets[0]?.name as string] as number;
const reference = datadog ? medians['masci/datadog (published dist)'] : undefined;
console.log(
  `Step wall time, ${ROUNDS} paired rounds (after ${WARMUP} warm-up), medians, Node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} at the end`,
);
/** The spread of a target's rounds: its first and third quartiles. */
const quartiles = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.round(q * (sorted.length - 1))] as number;
  return `${at(0.25).toFixed(0)}–${at(0.75).toFixed(0)}`;
};
console.log(
  `| Target | median ms | p25–p75 ms | × floor |${reference ? ' × masci/datadog |' : ''}`,
);
console.log(`|---|---:|---:|---:|${reference ? '---:|' : ''}`);
for (const target of targets) {
  const ms = medians[target.name] as number;
  const spread = quartiles(samples.get(target.name) ?? []);
  const cells = [target.name, ms.toFixed(1), spread, (ms / floor).toFixed(2)];
  if (reference) cells.push((ms / reference).toFixed(2));
  console.log(`| ${cells.join(' | ')} |`);
}
