import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { binsAdd } from '../../domain/tests/test-days.js';
import { pendingMigrations } from '../schema-version.js';
import { registerSeriesSum } from './series-sum-aggregate.js';
import { migrations as allMigrations, type Migration } from './sqlite-migrations.js';

export type Db = Database.Database;

/** The SQLite file in WAL mode with the server's settings, created if needed; not migrated yet. */
export function openConnection(path: string, durability: 'full' | 'normal' = 'full'): Db {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    // Retention's deletions give their pages back to the file system (PRAGMA incremental_vacuum
    // after a sweep). Takes effect only on a new file: an older one needs one VACUUM (docs/
    // operations.md, Retention).
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma(durability === 'full' ? 'synchronous = FULL' : 'synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Deleted and overwritten content is zeroed in the file, not just unlinked: a finished outbox
    // job's webhook token (its payload, set to NULL) must not survive in freed space. SQLite
    // cannot do this per table, so it applies to the whole file; see BENCHMARKS.md for its cost.
    db.pragma('secure_delete = ON');
    // Another process (the admin CLI) may hold the write lock for a moment.
    db.pragma('busy_timeout = 5000');
    // The per-day histograms' upsert adds a batch's bins to a row's (domain/tests/test-days.ts).
    db.function('test_bins_add', { deterministic: true }, (a, b) =>
      binsAdd(a as string | null, b as string | null),
    );
    // A span's series cells added up in one read (series-sum-aggregate.ts).
    registerSeriesSum(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens the SQLite file and brings its schema up to date (docs/configuration.md, DURABILITY, for
 * `durability`). The server opens it through openSqliteStorage, which backs it up first when a
 * migration is pending.
 */
export function openDatabase(
  path: string,
  durability: 'full' | 'normal' = 'full',
  migrations: Migration[] = allMigrations,
): Db {
  const db = openConnection(path, durability);
  try {
    migrate(db, migrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The schema version recorded in the file; null before the first migration. */
export function schemaVersion(db: Db): number | null {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .pluck()
    .get();
  if (!table) return null;
  return db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get() as number | null;
}

/**
 * Applies the pending migrations, all in one transaction: a failure leaves the database exactly
 * as it was (never half migrated), and a file newer than `migrations` is refused untouched.
 */
export function migrate(db: Db, migrations: Migration[]): void {
  // Under the write lock: another process may be migrating the same file.
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const record = db.prepare(
      'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
    );
    for (const migration of pendingMigrations(schemaVersion(db), migrations)) {
      db.exec(migration.sql);
      migration.run?.(db);
      record.run(migration.version, migration.name, new Date().toISOString());
    }
  }).immediate();
}
