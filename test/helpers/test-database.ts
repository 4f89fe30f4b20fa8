import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { openPgDatabase } from '../../server/storage/postgres/pg-database.js';

/**
 * The database a test runs the server on: a SQLite file in a temporary directory, or, in the
 * `postgres` Vitest project (TEST_DATABASE=postgres), a PostgreSQL database of its own, created
 * here and dropped by `drop()`.
 */

export type Backend = 'sqlite' | 'postgres';

export const backend: Backend = process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
export const onPostgres = backend === 'postgres';

/** A maintenance database of the cluster the tests create their databases in. */
export const POSTGRES_ADMIN_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/postgres';

/** Every test database's name starts with this, then the pid of the process that made it. */
export const TEST_DATABASE_PREFIX = 'ci_stats_test_';

export interface TestDatabase {
  backend: Backend;
  /** What points the server or the admin CLI at it: DATABASE_PATH or DATABASE_URL. */
  env: Record<string, string>;
  /** A temporary directory of the test's own (it holds the SQLite file on that backend). */
  dir: string;
  /** The SQLite file, or the PostgreSQL URL. */
  location: string;
  /** PostgreSQL only: the database's name. */
  name?: string;
  /**
   * Whether `drop` may empty it for the next test of the file rather than drop it; false once a
   * test changed more than rows (a trigger, a renamed table) or for an empty database.
   */
  reusable: boolean;
  /** Removes the database (or empties it for reuse) and the directory. */
  drop(): Promise<void>;
}

/** Fresh temporary directory, removed by the caller. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'ci-stats-test-'));
}

/** A URL of the same cluster naming another database. */
export function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A short-lived connection as an operator's psql would be (BIGINT read as numbers). */
export function connect(url: string): postgres.Sql {
  return postgres(url, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 5,
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (value: number) => String(value),
        parse: (value: string) => Number(value),
      },
    },
  }) as unknown as postgres.Sql;
}

let admin: postgres.Sql | undefined;
/** One connection per test file to the maintenance database, for CREATE and DROP DATABASE. */
export function adminSql(): postgres.Sql {
  admin ??= connect(POSTGRES_ADMIN_URL);
  return admin;
}

let counter = 0;
const uniqueName = (what: string) =>
  `${TEST_DATABASE_PREFIX}${process.pid}_${what}${++counter}_${Math.random().toString(36).slice(2, 8)}`;

/**
 * A database migrated once per test file, copied for each test server (CREATE DATABASE ...
 * TEMPLATE): 40 ms a copy here, against 70 ms for an empty database plus the migrations.
 */
let template: Promise<string> | undefined;
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = uniqueName('template');
    await adminSql().unsafe(`CREATE DATABASE "${name}"`);
    const pool = await openPgDatabase({ url: databaseUrl(name), max: 1 });
    await pool.end({ timeout: 5 });
    return name;
  })();
  return template;
}

/**
 * Migrated databases of this file whose server is done, emptied for the next one: under load a
 * DROP DATABASE (which waits for a checkpoint) takes over a second, a TRUNCATE of every table a
 * few milliseconds.
 */
const spare: string[] = [];

async function migratedDatabase(): Promise<string> {
  const reused = spare.pop();
  if (reused) return reused;
  const name = uniqueName('');
  await adminSql().unsafe(`CREATE DATABASE "${name}" TEMPLATE "${await migratedTemplate()}"`);
  return name;
}

/** Empties a database (the migrations record kept) and puts it back for the next test server. */
async function recycle(name: string): Promise<void> {
  // Connections a killed server process left behind.
  await adminSql()`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`;
  const client = connect(databaseUrl(name));
  try {
    const tables = (await client`
      SELECT tablename FROM pg_tables
       WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`) as unknown as {
      tablename: string;
    }[];
    await client.unsafe(
      `TRUNCATE ${tables.map((t) => `"${t.tablename}"`).join(', ')} RESTART IDENTITY CASCADE`,
    );
  } finally {
    await client.end({ timeout: 5 });
  }
  spare.push(name);
}

/** Drops this file's databases and template, and closes the maintenance connection. */
export async function releaseTestDatabases(): Promise<void> {
  for (const name of spare.splice(0)) {
    await adminSql().unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
  if (template) {
    const name = await template.catch(() => undefined);
    template = undefined;
    if (name) await adminSql().unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
  await admin?.end({ timeout: 5 });
  admin = undefined;
}

export interface TestDatabaseOptions {
  /** PostgreSQL: an empty database rather than a copy of the migrated template. */
  empty?: boolean;
  /** The backend, when not the project's (a test comparing both backends' answers). */
  backend?: Backend;
}

/** A fresh database for one test server (or for several sharing it, as replicas do). */
export async function createTestDatabase(
  options: TestDatabaseOptions = {},
  dir = tempDir(),
): Promise<TestDatabase> {
  const chosen = options.backend ?? backend;
  if (chosen === 'sqlite') {
    const location = join(dir, 'stats.db');
    return {
      backend: chosen,
      env: { DATABASE_PATH: location },
      dir,
      location,
      reusable: false,
      async drop() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  let name: string;
  if (options.empty) {
    name = uniqueName('');
    await adminSql().unsafe(`CREATE DATABASE "${name}"`);
  } else {
    name = await migratedDatabase();
  }
  const location = databaseUrl(name);
  let dropped = false;
  const database: TestDatabase = {
    backend: chosen,
    env: { DATABASE_URL: location },
    dir,
    location,
    name,
    reusable: !options.empty,
    async drop() {
      // Once: a database handed back twice would go to two test servers.
      if (dropped) return;
      dropped = true;
      rmSync(dir, { recursive: true, force: true });
      if (database.reusable) return recycle(name);
      // WITH (FORCE): a server process killed by a test may have left connections behind.
      await adminSql().unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
  return database;
}
