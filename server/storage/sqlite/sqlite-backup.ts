import { copyFileSync, existsSync, linkSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { BackupError, backupStamp } from '../backup-error.js';
import { NewerSchemaError, newestVersion } from '../schema-version.js';
import { type Db, schemaVersion } from './sqlite-database.js';
import { migrations } from './sqlite-migrations.js';

/** sqlite3_backup_step's page count that means "every page, in this one step". */
const EVERY_PAGE = 0x7fffffff;

/**
 * A consistent copy of the open database at `destination` (SQLite's online backup, through this
 * connection: the WAL's committed pages included, other connections free to go on writing).
 *
 * All pages are copied in one step, so in one read transaction: a backup done in steps starts
 * over whenever another connection (the server, when the admin CLI backs up) commits between two
 * steps, and under steady ingest would never finish. Writers are not held up meanwhile (WAL).
 */
export async function backupSqlite(db: Db, destination: string): Promise<void> {
  await db.backup(destination, { progress: () => EVERY_PAGE });
}

/**
 * `npm run admin -- backup <file>` on SQLite: the live database at `path` copied to `file`
 * while servers keep writing to it. The copy is written beside `file` under another name and
 * renamed when complete (a crash leaves no half backup under the real name), and set to
 * rollback-journal mode, so the backup is one self-contained file (no -wal beside it).
 */
export async function backupSqliteFile(
  path: string,
  file: string,
): Promise<{ file: string; bytes: number; schema: number | null }> {
  if (existsSync(file)) throw new BackupError(`${file} exists; give a new file name`);
  if (!existsSync(path)) throw new BackupError(`no database at ${path}; check DATABASE_PATH`);
  const partial = `${file}.partial`;
  // Read-only: a backup never writes to the database it copies.
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    rmSync(partial, { force: true });
    await backupSqlite(db, partial);
  } finally {
    db.close();
  }
  const copy = new Database(partial);
  let schema: number | null;
  let bytes: number;
  try {
    copy.pragma('journal_mode = DELETE');
    schema = schemaVersion(copy);
    bytes =
      (copy.pragma('page_count', { simple: true }) as number) *
      (copy.pragma('page_size', { simple: true }) as number);
  } finally {
    copy.close();
  }
  renameSync(partial, file);
  return { file, bytes, schema };
}

/**
 * What restore checks before it replaces anything: the file is a SQLite database that passes
 * `PRAGMA integrity_check`, holds a ci-stats schema, and no newer one than this version knows
 * (an older one is migrated by the next start, after the usual pre-migration copy).
 */
export function checkSqliteBackup(file: string): { schema: number } {
  let db: Db;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${file} cannot be opened: ${(error as Error).message}`);
  }
  try {
    let problems: string[];
    try {
      problems = db.pragma('integrity_check', { simple: false }) as never;
      problems = (problems as unknown as { integrity_check: string }[]).map(
        (row) => row.integrity_check,
      );
    } catch (error) {
      throw new BackupError(`${file} is not a SQLite database: ${(error as Error).message}`);
    }
    if (problems.length !== 1 || problems[0] !== 'ok') {
      throw new BackupError(
        `${file} fails SQLite's integrity check: ${problems.slice(0, 3).join('; ')}`,
      );
    }
    const schema = schemaVersion(db);
    if (schema === null)
      throw new BackupError(`${file} holds no ci-stats database (no schema_migrations)`);
    const newest = newestVersion(migrations);
    if (schema > newest) throw new BackupError(new NewerSchemaError(schema, newest).message);
    return { schema };
  } finally {
    db.close();
  }
}

/**
 * Holds `path` for the restore: its connection switches it out of WAL mode, which SQLite allows
 * only when no other connection has it open (a server, the admin CLI) and then keeps an exclusive
 * lock, so nothing opens it until the new file is in place. Null when there is no file.
 */
function holdUnused(path: string): Db | null {
  if (!existsSync(path)) return null;
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    try {
      db.pragma('journal_mode = DELETE');
      // Writes nothing, so no journal beside the file: only the lock, until close().
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
        throw new BackupError(
          `the database at ${path} is in use (a server or another command has it open); stop the server first`,
        );
      }
      throw error;
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * `npm run admin -- restore <file>` on SQLite: `file` checked (checkSqliteBackup), copied beside
 * the database and checked again there, then renamed over it, atomically, while the old database
 * is held unused. The old one stays beside it as `<name>.before-restore.<UTC time>` (nothing is
 * deleted: remove it once the restored database is right).
 */
export function restoreSqliteFile(
  path: string,
  file: string,
  at = new Date(),
): { file: string; schema: number; previous: string | null } {
  if (!existsSync(file)) throw new BackupError(`no backup at ${file}`);
  checkSqliteBackup(file);
  const incoming = `${path}.restoring`;
  rmSync(incoming, { force: true });
  copyFileSync(file, incoming);
  try {
    // The copy is what goes in place: it is checked, not only the file it came from.
    const { schema } = checkSqliteBackup(incoming);
    const held = holdUnused(path);
    try {
      let previous: string | null = null;
      if (held) {
        previous = join(dirname(path), `${basename(path)}.before-restore.${backupStamp(at)}`);
        linkSync(path, previous);
      }
      renameSync(incoming, path);
      return { file: path, schema, previous };
    } finally {
      held?.close();
    }
  } finally {
    rmSync(incoming, { force: true });
  }
}

/**
 * Where the copy taken before migrating from schema `from` goes: beside the database (the one
 * directory the server may write to), named after the schema it holds and the time it was taken,
 * e.g. `stats.db.schema-3.20261126T101500Z.bak`.
 */
export function preMigrationBackupPath(
  databasePath: string,
  from: number,
  at = new Date(),
): string {
  return join(
    dirname(databasePath),
    `${basename(databasePath)}.schema-${from}.${backupStamp(at)}.bak`,
  );
}
