import { configDefaults, defineConfig } from 'vitest/config';
import { POSTGRES_ADMIN_URL } from './test/helpers/test-database.js';
import LongestFirst from './test/longest-first.js';
import { postgresUnreachable } from './test/postgres-reachable.js';

/**
 * Two projects run the same test files: `sqlite` runs every test on SQLite files; `postgres` runs
 * every test that touches the server (in-process, as a child process, through the CLI, the Action
 * or a browser) again with TEST_DATABASE=postgres, each server on a fresh PostgreSQL database,
 * plus the tests only PostgreSQL has (replicas, crash, restart: test/postgres/).
 */

/** SQLite-only test files, each by nature. */
const SQLITE_ONLY = [
  // kill -9 and recovery from SQLite's WAL (PostgreSQL's is test/postgres/replica-crash.test.ts).
  'test/server/crash.test.ts',
  // secure_delete: the webhook tokens' bytes in the freed pages of the SQLite file.
  'test/server/erased-secrets.test.ts',
  // The backfill of SQLite's schema 3 (PostgreSQL's: test/postgres/pg-stats-migration.test.ts).
  'test/server/stats-migration.test.ts',
  // SQLite's group commit on a bare SQLite file.
  'test/server/commits.test.ts',
  // SQLite's log flushed before each answer, seen through strace (PostgreSQL flushes its own).
  'test/server/durable-answer.test.ts',
  // The key file beside a SQLite database (PostgreSQL's replicas share SECRETS_KEY instead).
  'test/server/secrets-key.test.ts',
  // SQLite's file on a full tmpfs (PostgreSQL's disk is its server's: 53100, pg-unavailable.ts).
  'test/server/full-disk.test.ts',
  // SQLite's log on a disk whose flushes fail (PostgreSQL stops by itself on a failed flush).
  'test/server/failed-flush.test.ts',
  // The flushes of SQLite's log, on a bare SQLite file.
  'test/server/wal-sync.test.ts',
  // SQLite hands this process's fresh metric records to judging; another writer's are read back.
  'test/server/judging-fresh.test.ts',
  // SQLite's fold inside a group's commit, at most every 100 ms (PostgreSQL's is a timer's).
  'test/server/fold-cadence.test.ts',
  // SQLite's migration 25 from schema 24 (PostgreSQL's: test/postgres/pg-workflow-migration.test.ts).
  'test/server/workflow-migration.test.ts',
  // Audits of the HTML in Chromium (axe-core at every impact, nothing wider than the screen, at
  // two widths and two schemes), the same whatever the backend: the entry pages read no stored
  // data but whether a share token exists, and what the signed-in pages read is tested on both
  // backends by their server tests (test/server/). Together six minutes of a CI run's workers.
  'test/browser/entry-pages.test.ts',
  'test/browser/signed-in-pages.test.ts',
];

const SERVER_TESTS = [
  'test/server/**/*.test.ts',
  'test/deploy/**/*.test.ts',
  'test/start/npm-start.test.ts',
  'test/docs/examples.test.ts',
  'test/browser/**/*.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/tests-report.test.ts',
  'test/cli/gitlab-note.test.ts',
  'test/action/verdict-e2e.test.ts',
  'test/action/dist.test.ts',
];

/**
 * Without PostgreSQL on a developer machine the postgres project is left out, in one line; with
 * CI set it stays, and its global setup fails for want of the database.
 */
const unreachable = await postgresUnreachable(POSTGRES_ADMIN_URL);
const withPostgres = unreachable === undefined || Boolean(process.env.CI);
// Vitest evaluates this file more than once (the projects extend it): one line all the same.
if (!withPostgres && !process.env.CI_STATS_SAID_NO_POSTGRES) {
  process.env.CI_STATS_SAID_NO_POSTGRES = '1';
  console.log(
    `PostgreSQL not reachable at ${POSTGRES_ADMIN_URL} (${unreachable}): the postgres tests are skipped (set CI to make this an error).`,
  );
}

export default defineConfig({
  test: {
    // Builds the server once, for the tests that run it as a child process.
    globalSetup: ['test/global-setup.ts'],
    // Vitest's default is one file at a time on a 2-core machine (cores − 1), while most files
    // wait on fsync, PostgreSQL, child processes or Chromium: three at a time took 0.61× the
    // wall time on the same eight PostgreSQL files (docs/contributing.md).
    maxWorkers: 3,
    // The longest files first, from test/durations.json (CI has no Vitest cache to go by).
    sequence: { sequencer: LongestFirst },
    // A worker keeps the modules it imported for its next file: importing the server's modules
    // anew for each of 600 files took 863 s of the workers' time in a full run (14 %), on CPUs
    // the tests already keep busy. No test file relies on fresh modules: each builds its own app,
    // database and servers, and restores what it changes of the process (docs/contributing.md).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/postgres/**'],
          env: { TEST_DATABASE: 'sqlite' },
        },
      },
      ...(withPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: [...SERVER_TESTS, 'test/postgres/**/*.test.ts'],
                exclude: [...configDefaults.exclude, ...SQLITE_ONLY],
                env: { TEST_DATABASE: 'postgres' },
                globalSetup: ['test/global-setup.ts', 'test/postgres-global-setup.ts'],
                setupFiles: ['test/postgres-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
