import postgres from 'postgres';
import { pendingMigrations } from '../schema-version.js';
import { type PgMigration, pgMigrations } from './pg-migrations.js';
import { maintainPartitions, recordsEmpty } from './pg-partitions.js';

/**
 * A pool of connections (porsager's `postgres`), or the transaction a `sql.begin` hands out: both
 * run the same tagged-template queries, so a repository written against `Sql` works in either.
 */
export type Sql = postgres.Sql<{ bigint: number }>;
export type TransactionSql = postgres.TransactionSql<{ bigint: number }>;

export interface PgOptions {
  url: string;
  /** Connections in the pool. */
  max?: number;
  /**
   * `full` (the default): a commit returns once its WAL is flushed (synchronous_commit on).
   * `normal` (DURABILITY=normal): it returns before, and PostgreSQL flushes within a few hundred
   * ms; a crash of PostgreSQL or its machine can lose the last commits (never a crash of ours).
   */
  durability?: 'full' | 'normal';
}

/**
 * PostgreSQL's array literal of integers (sent as one text parameter and cast to `int[]` or
 * `bigint[]`; integers need no quoting).
 */
export const integerArray = (values: Iterable<number>) => `{${[...values].join(',')}}`;

/**
 * The numbers of an array of numbers as PostgreSQL writes it (`{1,-2.5,Infinity}`, read as
 * text: one string to parse instead of an array of strings). Floats are written in their
 * shortest exact form (PostgreSQL 12 and later).
 */
export const numbersOf = (text: string) =>
  text.length > 2 ? text.slice(1, -1).split(',').map(Number) : [];

/**
 * The same for integers only (sequence numbers, sketch bins and counts: tens of thousands per
 * statistics read), read digit by digit without a string per number: four times as fast.
 */
export function integersOf(text: string): number[] {
  const values: number[] = [];
  let value = 0;
  let sign = 1;
  let digits = false;
  for (let i = 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) {
      value = value * 10 + (code - 48);
      digits = true;
    } else if (code === 45) {
      sign = -1;
    } else if (digits) {
      // ',' or the closing '}'.
      values.push(sign * value);
      value = 0;
      sign = 1;
      digits = false;
    }
  }
  return values;
}

/** An advisory lock key of its own: migrations of several replicas starting at once queue on it. */
const MIGRATION_LOCK = 4_017_221_001;

/**
 * Opens the pool and brings the schema up to date. BIGINT columns hold epoch milliseconds and
 * sequence numbers, all below 2^53, so they are read as numbers rather than strings.
 */
export async function openPgDatabase({
  url,
  max = 10,
  durability = 'full',
}: PgOptions): Promise<Sql> {
  const sql = connect(url, max, {
    // A commit is durable before it is acknowledged, whatever the server's default says (unless
    // the operator chose DURABILITY=normal).
    synchronous_commit: durability === 'full' ? 'on' : 'off',
  });
  try {
    await migrate(sql, pgMigrations);
    // A new database is partitioned before it serves (instant on empty tables); one with
    // records is converted online by the storage's partition keeper (pg-partitions.ts).
    if (await recordsEmpty(sql)) await maintainPartitions(sql);
    return sql;
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
}

/**
 * The pool of the statistics reads (series, build summaries, key lists, badges), apart from the
 * one that writes: at most `max` such reads hold a connection at once, whatever their number, so
 * they never take the connections ingest and the rest need; and each statement is cancelled by
 * PostgreSQL after `statementTimeoutMs` (statement_timeout; 0: never), which the storage reports
 * as ReadTimeout. It runs no migration: the main pool did.
 */
export function openPgReadPool(
  url: string,
  max: number,
  statementTimeoutMs: number,
  applicationName?: string,
): Sql {
  return connect(url, max, {
    statement_timeout: String(statementTimeoutMs),
    // Named where an operator looks (pg_stat_activity): the replica's reads say whose they are.
    ...(applicationName === undefined ? {} : { application_name: applicationName }),
  });
}

/** A pool with the settings every connection of ours takes, and `connection`'s. */
function connect(url: string, max: number, connection: Record<string, string>): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    // The server answers 503 while the database is away; a query waits at most this long for a
    // connection before it fails.
    connect_timeout: 5,
    // Back within a second of the database: the client's default backoff after failed attempts
    // grows to 20 s, which would keep answering 503 long after a restart.
    backoff: (attempts: number) => Math.min(0.05 * 2 ** attempts, 1) * (0.5 + Math.random() / 2),
    connection: {
      // Our queries are short and planned to read little; JIT compiling one whose estimate looks
      // large took 150 ms of a 30-day series' 200 (the statistics reads, BENCHMARKS.md).
      jit: 'off',
      ...connection,
    },
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (value: number) => String(value),
        parse: (value: string) => Number(value),
      },
    },
  }) as unknown as Sql;
}

/**
 * Applies the pending migrations in one transaction, under an advisory lock (replicas starting
 * together migrate once): a failure leaves the database as it was, and a database newer than
 * `migrations` is refused untouched.
 */
export async function migrate(sql: Sql, migrations: PgMigration[]): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`;
    const [row] = await tx<{ current: number | null }[]>`
      SELECT MAX(version) AS current FROM schema_migrations`;
    for (const migration of pendingMigrations(row?.current ?? null, migrations)) {
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO schema_migrations (version, name, applied_at)
               VALUES (${migration.version}, ${migration.name}, ${new Date().toISOString()})`;
    }
  });
}
