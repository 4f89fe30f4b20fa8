import { readdirSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate as pgMigrate } from '../../server/storage/postgres/pg-database.js';
import { pgMigrations } from '../../server/storage/postgres/pg-migrations.js';
import {
  openDatabase,
  migrate as sqliteMigrate,
} from '../../server/storage/sqlite/sqlite-database.js';
import { migrations as sqliteMigrations } from '../../server/storage/sqlite/sqlite-migrations.js';
import { executeSql, openReader, selectColumn } from '../helpers/database.js';
import { run, SERVER_ENTRY, startServerProcess } from '../helpers/process.js';
import {
  connect,
  createTestDatabase,
  onPostgres,
  type TestDatabase,
} from '../helpers/test-database.js';

/**
 * Upgrades and rollbacks: a database written by a newer version is refused in one line and left
 * as it was; pending migrations apply all or nothing; on SQLite a copy is taken before migrating.
 */

const newest = Math.max(...(onPostgres ? pgMigrations : sqliteMigrations).map((m) => m.version));

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
  // A migrated database (PostgreSQL's template is one; a SQLite file is made here).
  if (!onPostgres) openDatabase(database.location).close();
});
afterEach(() => database.drop());

/** The tables and every row: what "left as it was" compares. */
async function snapshot(): Promise<string[]> {
  const tables = await selectColumn(
    database,
    onPostgres
      ? "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
      : "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
  );
  const reader = openReader(database);
  try {
    return [...tables.map((table) => `table ${table}`), ...(await reader.everything([]))];
  } finally {
    await reader.close();
  }
}

describe('a database written by a newer version', () => {
  it('makes the server refuse to start, in one line, and changes nothing', async () => {
    await executeSql(
      database,
      'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
      newest + 1,
      'from the future',
      '2030-01-01T00:00:00.000Z',
    );
    const before = await snapshot();
    const refused = await run([SERVER_ENTRY], { ...database.env, PORT: '0' });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    const lines = refused.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `database schema version ${newest + 1} was written by a newer version of ci-stats (this one knows up to ${newest}); refusing to start`,
    );
    // The admin CLI refuses it too.
    const admin = await run(['build/server/admin-cli.js', 'account:list'], database.env);
    expect(admin.code).toBe(1);
    expect(admin.stderr).toContain('was written by a newer version of ci-stats');
    expect(await snapshot()).toEqual(before);
  });
});

describe('pending migrations', () => {
  it('apply all or nothing: one that fails leaves the database at its old schema', async () => {
    // A fresh database at the first schema, then the rest with a broken one at the end.
    const fresh = await createTestDatabase({ empty: true });
    try {
      const failing = { version: newest + 1, name: 'broken', sql: 'SELECT * FROM no_such_table' };
      if (onPostgres) {
        const sql = connect(fresh.location);
        try {
          await pgMigrate(sql as never, pgMigrations.slice(0, 1));
          const tables = await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`;
          await expect(pgMigrate(sql as never, [...pgMigrations, failing])).rejects.toThrow(
            /no_such_table/,
          );
          expect(await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`).toEqual(
            tables,
          );
          expect(await sql`SELECT MAX(version) AS v FROM schema_migrations`).toEqual([{ v: 1 }]);
        } finally {
          await sql.end({ timeout: 5 });
        }
      } else {
        const db = openDatabase(fresh.location, 'full', sqliteMigrations.slice(0, 1));
        try {
          const tables = () => db.prepare('SELECT name FROM sqlite_master ORDER BY name').all();
          const atFirst = tables();
          expect(() => sqliteMigrate(db, [...sqliteMigrations, { ...failing }])).toThrow(
            /no_such_table/,
          );
          expect(tables()).toEqual(atFirst);
          expect(db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(1);
        } finally {
          db.close();
        }
      }
    } finally {
      await fresh.drop();
    }
  });
});

// PostgreSQL's backups are the operator's pg_dump (docs/operations.md): the server cannot take one.
describe.skipIf(onPostgres)('an upgrade on SQLite', () => {
  it('copies the database beside it before migrating, and only then', async () => {
    // A database the previous version wrote, instead of the migrated one of beforeEach.
    for (const suffix of ['', '-wal', '-shm'])
      rmSync(`${database.location}${suffix}`, { force: true });
    const old = openDatabase(database.location, 'full', sqliteMigrations.slice(0, -1));
    old.exec("INSERT INTO accounts (id, label, created_at) VALUES ('a', 'kept', '2026-01-01')");
    old.close();
    const from = newest - 1;

    const server = await startServerProcess({ ...database.env, LOG_LEVEL: 'info' });
    expect(server.output()).toContain('backed up the database before migrating its schema');
    expect(await server.stop()).toBe(0);
    const backups = readdirSync(database.dir).filter((name) => name.endsWith('.bak'));
    expect(backups).toEqual([
      expect.stringMatching(`^stats\\.db\\.schema-${from}\\.\\d{8}T\\d{6}Z\\.bak$`),
    ]);

    // The copy is the database as it was: the old schema, and its rows.
    const copy = new Database(`${database.dir}/${backups[0]}`, { readonly: true });
    try {
      expect(copy.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(from);
      expect(copy.prepare('SELECT label FROM accounts').pluck().all()).toEqual(['kept']);
    } finally {
      copy.close();
    }
    expect(await selectColumn(database, 'SELECT MAX(version) FROM schema_migrations')).toEqual([
      newest,
    ]);

    // Up to date now: the next start copies nothing.
    const again = await startServerProcess({ ...database.env, LOG_LEVEL: 'info' });
    expect(again.output()).not.toContain('backed up');
    expect(await again.stop()).toBe(0);
    expect(readdirSync(database.dir).filter((name) => name.endsWith('.bak'))).toHaveLength(1);
  });
});
