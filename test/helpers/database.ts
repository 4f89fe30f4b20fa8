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

/**
 * Rows of `everything()` that the server's background work writes, not the request in hand: the
 * outbox (its worker retries earlier webhooks), everything the statistics fold writes from the
 * records in the background (the cells, the workflow cells, the key and branch lists, PostgreSQL's
 * queues), what judging derives from the records (verdicts, change points, alerts) and the tests'
 * upkeep behind their batches (its queue, the summaries, the day rows). Tests that check that a
 * refused request changed nothing leave these out.
 */
export const BACKGROUND_ROWS =
  /^(outbox|stats_queue|stats_progress|series_cells|series_totals|event_cells|series|branches|workflow_event_cells|workflow_series_cells|workflow_queue|verdict_queue|verdict_progress|judged_records|metric_values|series_settings|change_point_states|change_points|alerts|test_upkeep|test_summaries|test_days) /;

/** A connection kept open, for a test that reads after every request (read-only by intent). */
export interface DatabaseReader {
  /**
   * Every row of every table as `table` and the row in JSON without the columns `leaving` names,
   * sorted (PostgreSQL returns rows in no particular order: an update moves a row). One round
   * trip on PostgreSQL. `except`: tables left out, matched as their rows would be (`table `,
   * e.g. BACKGROUND_ROWS), so that rows a caller drops are not read at all.
   */
  everything(leaving: string[], except?: RegExp): Promise<string[]>;
  close(): Promise<void>;
}

const hex = (_key: string, value: unknown) =>
  Buffer.isBuffer(value) ? value.toString('hex') : value;

export function openReader(database: TestDatabase): DatabaseReader {
  if (database.backend === 'sqlite') {
    const db = new Database(database.location, { readonly: true });
    return {
      async everything(leaving, except) {
        const tables = db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
          .pluck()
          .all() as string[];
        return tables
          .filter((table) => !except?.test(`${table} `))
          .flatMap((table) =>
            (db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[]).map(
              (row) => {
                for (const column of leaving) delete row[column];
                return `${table} ${JSON.stringify(row, hex)}`;
              },
            ),
          )
          .sort();
      },
      close: async () => {
        db.close();
      },
    };
  }
  const client = connect(database.location);
  let tables: string[] | undefined;
  return {
    async everything(leaving, except) {
      tables ??= (
        (await client.unsafe(
          "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
        )) as unknown as { tablename: string }[]
      ).map((row) => row.tablename);
      const minus = leaving.map((column) => ` - '${column}'`).join('');
      // Sorted here, in JavaScript's order, as SQLite's are: no ORDER BY for PostgreSQL to sort.
      const rows = (await client.unsafe(
        `${tables
          .filter((table) => !except?.test(`${table} `))
          .map(
            (table) =>
              `SELECT '${table}' || ' ' || (to_jsonb(x)${minus})::text AS r FROM "${table}" x`,
          )
          .join(' UNION ALL ')}`,
      )) as unknown as { r: string }[];
      return rows.map((row) => row.r).sort();
    },
    close: () => client.end({ timeout: 5 }),
  };
}
