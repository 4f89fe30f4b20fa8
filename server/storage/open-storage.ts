import type { Config } from '../config.js';
import { openSqliteStorage } from './sqlite/sqlite-storage.js';
import type { Storage } from './storage.js';

/** The storage the configuration names, opened and migrated. */
export async function openStorage(
  config: Pick<Config, 'databasePath' | 'durability'>,
): Promise<Storage> {
  return openSqliteStorage({ path: config.databasePath, durability: config.durability });
}
