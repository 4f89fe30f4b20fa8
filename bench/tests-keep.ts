import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serverEnv } from './load.js';
import { startProcess, stop } from './processes.js';
import {
  measureTestReads,
  seedTestsPostgres,
  seedTestsSqlite,
  testsReport,
  testsScaleOf,
} from './tests-scale.js';

/**
 * The `tests` scenario with a database that outlives the run (bench/tests-scale.ts seeds and
 * drops it in one go): seed once, then measure as often as a change of the reads needs.
 *
 *   node build/bench/tests-keep.js seed    <dir> [postgres-url]
 *   node build/bench/tests-keep.js measure <dir> [postgres-url]
 *
 * `dir` holds the SQLite database (stats.db) and the project's id (project.json); with a
 * PostgreSQL url (a database that exists and is empty), the server runs on it instead. Scale as
 * the scenario's (BENCH_TESTS, BENCH_TEST_RUNS, BENCH_TEST_RESULTS or BENCH_TEST_RESULTS_PG,
 * BENCH_TESTS_SAMPLES). Delete the directory (and drop the database) when done: they are large.
 */
const [command, dir, url] = process.argv.slice(2);
if ((command !== 'seed' && command !== 'measure') || dir === undefined) {
  process.stderr.write('usage: tests-keep.js seed|measure <dir> [postgres-url]\n');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
const backend = url === undefined ? 'sqlite' : 'postgres';
const databasePath = join(dir, 'stats.db');
const env: Record<string, string> = serverEnv(databasePath, 'full');
if (url !== undefined) {
  env.DATABASE_URL = url;
  delete env.DATABASE_PATH;
  delete env.DURABILITY;
}
const statePath = join(dir, `project-${backend}.json`);
const scale = testsScaleOf(backend);

if (command === 'seed') {
  if (existsSync(statePath)) throw new Error(`${statePath} exists: seeded already`);
  const server = await startProcess(['build/server/main.js'], env);
  const projectId = /project id:\s+(\S+)/.exec(server.stdout)?.[1] as string;
  await stop(server);
  const started = Date.now();
  if (url === undefined) seedTestsSqlite(databasePath, projectId, scale);
  else await seedTestsPostgres(url, projectId, scale);
  const seedSeconds = (Date.now() - started) / 1000;
  writeFileSync(statePath, JSON.stringify({ projectId, scale, seedSeconds }));
  process.stderr.write(`seeded ${scale.results} results in ${seedSeconds} s\n`);
} else {
  const state = JSON.parse(readFileSync(statePath, 'utf8')) as {
    projectId: string;
    scale: typeof scale;
    seedSeconds: number;
  };
  const server = await startProcess(['build/server/main.js'], env);
  try {
    const results = await measureTestReads(server.url, state.projectId, scale.samples);
    const serverPeakRssMb = await stop(server);
    const report = testsReport(backend === 'sqlite' ? 'SQLite' : 'PostgreSQL', {
      scale: { ...state.scale, samples: scale.samples },
      seedSeconds: state.seedSeconds,
      results,
      storage: {},
      serverPeakRssMb,
    });
    process.stdout.write(`${report.join('\n')}\n`);
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGTERM');
  }
}
