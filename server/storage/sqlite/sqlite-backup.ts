import { basename, dirname, join } from 'node:path';
import type { Db } from './sqlite-database.js';

/**
 * A consistent copy of the open database at `destination` (SQLite's online backup, through this
 * connection: the WAL's committed pages included, other connections free to go on writing).
 */
export async function backupSqlite(db: Db, destination: string): Promise<void> {
  await db.backup(destination);
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
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return join(dirname(databasePath), `${basename(databasePath)}.schema-${from}.${stamp}.bak`);
}
