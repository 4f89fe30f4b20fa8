import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * What a test server's database holds, read the way an operator would: with a connection of its
 * own (not through the server), so an assertion cannot be satisfied by the code it checks.
 */
export function selectRows(dir: string, sql: string): Record<string, unknown>[] {
  const db = new Database(join(dir, 'stats.db'), { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/** The first column of each row. */
export function selectColumn(dir: string, sql: string): unknown[] {
  return selectRows(dir, sql).map((row) => Object.values(row)[0]);
}

/** Writes to a test server's database behind its back, as an old version of the server might have. */
export function executeSql(dir: string, sql: string, ...params: unknown[]): void {
  const db = new Database(join(dir, 'stats.db'));
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}
