import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './median.js';

/**
 * `npm run bench:startup` (issue 26): how long a start takes when nothing changed, side by side
 * with what it was (the build run before every start) and with the floor (node on the built file),
 * in rotating rounds; the same for one admin command; and the CLI's install from its tarball,
 * offline. Figures in BENCHMARKS.md, "Start-up and install (issue 26)".
 */

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'ci-stats-startup-'));
const env = { ...process.env, DATABASE_PATH: join(dir, 'stats.db'), HOST: '127.0.0.1' };

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Milliseconds from spawning `command` to the first 200 of /healthz; then a clean stop. */
async function toHealthy(command: string[]): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(command[0] as string, command.slice(1), {
    env: { ...env, PORT: String(port) },
    stdio: 'ignore',
    detached: true,
  });
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200) break;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const elapsed = performance.now() - started;
  process.kill(-(child.pid as number), 'SIGTERM');
  if (child.exitCode === null) await once(child, 'exit');
  return elapsed;
}

function timed(command: string[]): number {
  const started = performance.now();
  execFileSync(command[0] as string, command.slice(1), { env, stdio: 'ignore' });
  return performance.now() - started;
}

const STARTS: [string, string[]][] = [
  ['npm start (nothing changed)', ['npm', 'start', '--silent']],
  [
    'before: build, then start',
    ['sh', '-c', 'npm run build --silent && exec node build/server/main.js'],
  ],
  ['floor: node build/server/main.js', [process.execPath, 'build/server/main.js']],
];
const ADMIN: [string, string[]][] = [
  ['npm run admin -- account:list', ['npm', 'run', '-s', 'admin', '--', 'account:list']],
  [
    'before: build, then the command',
    ['sh', '-c', 'npm run build --silent && node build/server/admin-cli.js account:list'],
  ],
  [
    'floor: node build/server/admin-cli.js',
    [process.execPath, 'build/server/admin-cli.js', 'account:list'],
  ],
];

/** `npm pack ./dist`, then a global install of the tarball into an empty prefix, offline. */
function installCli(round: number): number {
  const where = join(dir, `cli-${round}`);
  mkdirSync(join(where, 'cache'), { recursive: true });
  execFileSync('npm', ['pack', './dist', '--silent', '--pack-destination', where], {
    stdio: 'ignore',
  });
  const tarball = readdirSync(where).find((name) => name.endsWith('.tgz')) as string;
  const started = performance.now();
  execFileSync(
    'npm',
    [
      'install',
      '-g',
      '--offline',
      '--prefix',
      join(where, 'prefix'),
      '--no-audit',
      '--no-fund',
      join(where, tarball),
    ],
    {
      stdio: 'ignore',
      env: {
        ...process.env,
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_cache: join(where, 'cache'),
      },
    },
  );
  return performance.now() - started;
}

// A database with its schema, as after a first start.
timed([process.execPath, 'build/server/admin-cli.js', 'account:create', '--create']);
const samples = new Map<string, number[]>();
const add = (name: string, ms: number) => samples.set(name, [...(samples.get(name) ?? []), ms]);
for (let round = 0; round < ROUNDS; round++) {
  const shift = round % STARTS.length;
  for (const [name, command] of [...STARTS.slice(shift), ...STARTS.slice(0, shift)]) {
    add(name, await toHealthy(command));
  }
  for (const [name, command] of [...ADMIN.slice(shift), ...ADMIN.slice(0, shift)]) {
    add(name, timed(command));
  }
  add('CLI: npm install -g of its tarball, offline', installCli(round));
}
rmSync(dir, { recursive: true, force: true });

const [load1, load5] = loadavg();
process.stdout.write(
  `Start-up, ${ROUNDS} rotating rounds, medians (min–max), Node ${process.version}, load average ${load1?.toFixed(2)} / ${load5?.toFixed(2)}\n\n| | median | range |\n|---|---:|---:|\n`,
);
for (const [name, values] of samples) {
  const ms = (v: number) => `${Math.round(v).toLocaleString('en')} ms`;
  process.stdout.write(
    `| ${name} | ${ms(median(values))} | ${ms(Math.min(...values))}–${ms(Math.max(...values))} |\n`,
  );
}
