import Database from 'better-sqlite3';
import { connect, type TestDatabase } from './test-database.js';

/**
 * What a test server's database holds, read the way an operator would: with a connection of its
 * own (not through the server), so an assertion cannot be satisfied by the code it checks. The
 * SQL is what both databases understand; parameters are written `?` and numbered for PostgreSQL.
 */

/** `?` placeholders as PostgreSQL's `$1, $2, ...` (the tests' SQL has no `?` inside strings). */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** Runs `sql` on a connection of its own, closed afterwards. */
async function onConnection<T>(
  database: TestDatabase,
  sql: string,
  params: unknown[],
  readonly: boolean,
  sqlite: (statement: Database.Statement) => T,
  pg: (rows: Record<string, unknown>[]) => T,
): Promise<T> {
  if (database.backend === 'sqlite') {
    const db = new Database(database.location, { readonly });
    try {
      return sqlite(db.prepare(sql));
    } finally {
      db.close();
    }
  }
  const client = connect(database.location);
  try {
    const rows = await client.unsafe(numbered(sql), params as never[]);
    return pg(rows as unknown as Record<string, unknown>[]);
  } finally {
    await client.end({ timeout: 5 });
  }
}

export function selectRows(
  database: TestDatabase,
  sql: string,
  ...params: unknown[]
): Promise<Record<string, unknown>[]> {
  return onConnection(
    database,
    sql,
    params,
    true,
    (statement) => statement.all(...params) as Record<string, unknown>[],
    (rows) => rows.map((row) => ({ ...row })),
  );
}

/** The first column of each row. */
export async function selectColumn(
  database: TestDatabase,
  sql: string,
  ...params: unknown[]
): Promise<unknown[]> {
  return (await selectRows(database, sql, ...params)).map((row) => Object.values(row)[0]);
}

/** Writes to a test server's database behind its back, as an old version of the server might have. */
export async function executeSql(
  database: TestDatabase,
  sql: string,
  ...params: unknown[]
): Promise<void> {
  await onConnection(
    database,
    sql,
    params,
    false,
    (statement) => statement.run(...params),
    () => undefined,
  );
}

/** A connection kept open, for a test that reads after every request (read-only by intent). */
export interface DatabaseReader {
  selectRows(sql: string): Promise<Record<string, unknown>[]>;
  /** The tables of the database, by name. */
  tableNames(): Promise<string[]>;
  close(): Promise<void>;
}

export function openReader(database: TestDatabase): DatabaseReader {
  const tablesSql =
    database.backend === 'sqlite'
      ? "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
      : "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename";
  if (database.backend === 'sqlite') {
    const db = new Database(database.location, { readonly: true });
    const selectRows = async (sql: string) => db.prepare(sql).all() as Record<string, unknown>[];
    return {
      selectRows,
      tableNames: async () => (await selectRows(tablesSql)).map((row) => row.name as string),
      close: async () => {
        db.close();
      },
    };
  }
  const client = connect(database.location);
  const selectRows = async (sql: string) =>
    (await client.unsafe(sql)).map((row) => ({ ...row })) as Record<string, unknown>[];
  return {
    selectRows,
    tableNames: async () => (await selectRows(tablesSql)).map((row) => row.name as string),
    close: () => client.end({ timeout: 5 }),
  };
}
