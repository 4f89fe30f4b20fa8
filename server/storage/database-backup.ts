import type { Config } from '../config.js';
import { backupPostgres, restorePostgres } from './postgres/pg-backup.js';
import { backupSqliteFile, restoreSqliteFile } from './sqlite/sqlite-backup.js';

type Where = Pick<Config, 'databasePath' | 'databaseUrl'>;

/** A consistent copy of the configured database in `file`, taken while servers keep serving. */
export function backupDatabase(config: Where, file: string): Promise<object> {
  return config.databaseUrl !== undefined
    ? backupPostgres(config.databaseUrl, file)
    : backupSqliteFile(config.databasePath, file);
}

/** `file` checked and put in place of the configured database, which must not be in use. */
export async function restoreDatabase(config: Where, file: string): Promise<object> {
  return config.databaseUrl !== undefined
    ? restorePostgres(config.databaseUrl, file)
    : restoreSqliteFile(config.databasePath, file);
}
