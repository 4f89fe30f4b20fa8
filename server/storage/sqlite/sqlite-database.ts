import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrations as allMigrations, type Migration } from './sqlite-migrations.js';

export type Db = Database.Database;

/**
 * Opens (creating if needed) the SQLite file in WAL mode and brings its schema up to date.
 * `full` durability (`synchronous=FULL`) makes every commit durable before it returns; `normal`
 * commits without waiting for the flush (see README, Durability and speed).
 */
export function openDatabase(
  path: string,
  durability: 'full' | 'normal' = 'full',
  migrations: Migration[] = allMigrations,
): Db {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(durability === 'full' ? 'synchronous = FULL' : 'synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Deleted and overwritten content is zeroed in the file, not just unlinked: a finished outbox
    // job's webhook token (its payload, set to NULL) must not survive in freed space. SQLite
    // cannot do this per table, so it applies to the whole file; see BENCHMARKS.md for its cost.
    db.pragma('secure_delete = ON');
    // Another process (the admin CLI) may hold the write lock for a moment.
    db.pragma('busy_timeout = 5000');
    migrate(db, migrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function migrate(db: Db, migrations: Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const newest = Math.max(0, ...migrations.map((m) => m.version));
  const current = db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get() as
    | number
    | null;
  if (current !== null && current > newest) {
    throw new Error(
      `database schema version ${current} is newer than this server (${newest}); refusing to start`,
    );
  }
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').pluck();
  const record = db.prepare(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    // Re-checked under the write lock: another process may be migrating the same file.
    db.transaction(() => {
      if (isApplied.get(migration.version)) return;
      db.exec(migration.sql);
      migration.run?.(db);
      record.run(migration.version, migration.name, new Date().toISOString());
    }).immediate();
  }
}
