import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Database failures for the 500 paths, made the way they happen in production: by another
 * connection to the same file, never by replacing our own modules.
 */
function withConnection(dir: string, sql: string): void {
  const db = new Database(join(dir, 'stats.db'));
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** Every later write to `table` fails, as with a full disk. */
export function failWrites(dir: string, table: string): void {
  withConnection(
    dir,
    `CREATE TRIGGER fail_insert_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'disk full'); END;
     CREATE TRIGGER fail_update_${table} BEFORE UPDATE ON ${table} BEGIN SELECT RAISE(ABORT, 'disk full'); END;`,
  );
}

/** Every later read of `table` fails. */
export function failReads(dir: string, table: string): void {
  withConnection(dir, `ALTER TABLE ${table} RENAME TO ${table}_gone`);
}
