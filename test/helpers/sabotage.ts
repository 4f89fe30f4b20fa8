import Database from 'better-sqlite3';
import { connect, type TestDatabase } from './test-database.js';

/**
 * Database failures for the 500 paths, made the way they happen in production: by another
 * connection to the same database, never by replacing our own modules.
 */
async function withConnection(
  database: TestDatabase,
  sql: { sqlite: string; postgres: string },
): Promise<void> {
  // Not a database to hand to the next test any more.
  database.reusable = false;
  if (database.backend === 'sqlite') {
    const db = new Database(database.location);
    try {
      db.exec(sql.sqlite);
    } finally {
      db.close();
    }
    return;
  }
  const client = connect(database.location);
  try {
    await client.unsafe(sql.postgres);
  } finally {
    await client.end({ timeout: 5 });
  }
}

/** Every later write to `table` fails, as with a full disk. */
export function failWrites(database: TestDatabase, table: string): Promise<void> {
  return withConnection(database, {
    sqlite: `CREATE TRIGGER fail_insert_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'disk full'); END;
     CREATE TRIGGER fail_update_${table} BEFORE UPDATE ON ${table} BEGIN SELECT RAISE(ABORT, 'disk full'); END;`,
    postgres: `CREATE OR REPLACE FUNCTION fail_write() RETURNS trigger LANGUAGE plpgsql AS
       $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
     CREATE TRIGGER fail_write_${table} BEFORE INSERT OR UPDATE ON ${table}
       FOR EACH ROW EXECUTE FUNCTION fail_write();`,
  });
}

/** Every later read of `table` fails. */
export function failReads(database: TestDatabase, table: string): Promise<void> {
  const rename = `ALTER TABLE ${table} RENAME TO ${table}_gone`;
  return withConnection(database, { sqlite: rename, postgres: rename });
}
