import type { Sql } from './pg-database.js';

/**
 * The raw records on PostgreSQL, partitioned by time (docs/decisions.md, "Records partitioned by
 * month on PostgreSQL"): `events`, `metrics` and `test_results` are partitioned BY RANGE (created_at), one
 * partition a month (`events_p202612`: December 2026, UTC), made MONTHS_AHEAD months ahead; the
 * records stored before the tables were partitioned stay where they are, as one partition of
 * everything before its bound (`events_before_202701`), and a DEFAULT partition takes a record of
 * any time no other partition covers, so no insert ever fails for want of a partition.
 *
 * A database of migration 18's plain tables is converted online (convertTable): the steps that
 * read every row (a CHECK constraint validated, the new primary key's index built concurrently)
 * run while ingest goes on, and the swap that takes the table's exclusive lock does no scan:
 * renames, a partitioned table made empty, the old table attached as the partition of the past
 * (its validated CHECK proves its rows belong there) and a few empty partitions. Each step that
 * takes an exclusive lock waits at most LOCK_WAIT_MS for it, and is tried again later rather
 * than queue ingest behind a long reader.
 */

export const PARTITIONED_TABLES = ['events', 'metrics', 'test_results'] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/**
 * Each table's primary key before partitioning; partitioned, it also holds created_at (PostgreSQL
 * requires the partition key in it). A test result's created_at is its run's (PostgreSQL migration 24), so a
 * run's results are in one partition and (run_id, test_id) stays unique.
 */
const KEYS: Record<PartitionedTable, string> = {
  events: 'seq',
  metrics: 'seq',
  test_results: 'run_id, test_id',
};
/** The index of the partitioned key (key, created_at), built before the swap. */
const keyIndex = (table: PartitionedTable) =>
  table === 'test_results' ? 'test_results_key_created' : `${table}_seq_created`;

/** Monthly partitions made ahead of the current month. */
export const MONTHS_AHEAD = 3;
/** The conversion's bound is at least this far ahead: ingest never meets the CHECK before the swap. */
const BOUND_MARGIN_MS = 7 * 86_400_000;
/** The longest an exclusive lock is waited for (ingest queues behind the waiting request). */
const LOCK_WAIT_MS = 300;
/** Tries of a step that takes an exclusive lock, in one run. */
const LOCK_TRIES = 20;
/** The partitions' advisory lock (two-key form, as the fold's): one replica at a time. */
export const PARTITIONS_LOCK = [4_017_221, 4] as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The first millisecond of the month of `t`, `months` months on (UTC). */
export function monthStart(t: number, months = 0): number {
  const date = new Date(t);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1);
}
/** YYYYMM of the month starting at `t`. */
const monthName = (t: number) => new Date(t).toISOString().slice(0, 7).replace('-', '');

/** Whether PostgreSQL refused for want of the lock within lock_timeout (55P03). */
const lockTimedOut = (error: unknown) => (error as { code?: unknown } | null)?.code === '55P03';

/**
 * One transaction: on a pool, `begin`; on a reserved connection (which has none in postgres.js
 * 3.4), BEGIN and COMMIT on it.
 */
async function transaction<T>(sql: Sql, work: (tx: Sql) => Promise<T>): Promise<T> {
  if (typeof sql.begin === 'function') {
    return (await sql.begin((tx) => work(tx as unknown as Sql))) as T;
  }
  await sql.unsafe('BEGIN');
  try {
    const result = await work(sql);
    await sql.unsafe('COMMIT');
    return result;
  } catch (error) {
    await sql.unsafe('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** Runs a short transaction with a bounded lock wait, tried again while the lock is busy. */
export async function withShortLocks<T>(sql: Sql, work: (tx: Sql) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction(sql, async (tx) => {
        await tx.unsafe(`SET LOCAL lock_timeout = '${LOCK_WAIT_MS}ms'`);
        return work(tx);
      });
    } catch (error) {
      if (!lockTimedOut(error) || attempt >= LOCK_TRIES) throw error;
      await sleep(100 + Math.random() * 400 * attempt);
    }
  }
}

export async function isPartitioned(sql: Sql, table: string): Promise<boolean> {
  const [row] = await sql<{ kind: string | null }[]>`
    SELECT relkind::text AS kind FROM pg_class WHERE oid = to_regclass(${table})`;
  return row?.kind === 'p';
}

/** A partition of a table, with its range (null bounds: MINVALUE, or the DEFAULT partition). */
export interface Partition {
  name: string;
  from: number | null;
  to: number | null;
  isDefault: boolean;
}

export async function partitionsOf(sql: Sql, table: string): Promise<Partition[]> {
  const rows = await sql<{ name: string; bound: string }[]>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = to_regclass(${table}) ORDER BY c.relname`;
  return rows.map(({ name, bound }) => {
    const from = /FROM \('?(-?\d+)'?\)/.exec(bound)?.[1];
    const to = /TO \('?(-?\d+)'?\)/.exec(bound)?.[1];
    return {
      name,
      from: from === undefined ? null : Number(from),
      to: to === undefined ? null : Number(to),
      isDefault: bound === 'DEFAULT',
    };
  });
}

/** The bound a validated CHECK of the plain table already proves (from an earlier run). */
async function checkedBound(sql: Sql, table: string): Promise<number | undefined> {
  const [row] = await sql<{ def: string }[]>`
    SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
     WHERE conrelid = to_regclass(${table}) AND conname = ${`${table}_created_before`}`;
  const bound = row && /< '?(-?\d+)'?/.exec(row.def)?.[1];
  return bound === undefined ? undefined : Number(bound);
}

/**
 * Converts one plain table into the partitioned layout while ingest goes on. `sql` is a reserved
 * connection (CREATE INDEX CONCURRENTLY runs outside any transaction).
 */
export async function convertTable(sql: Sql, table: PartitionedTable, now: number): Promise<void> {
  if (await isPartitioned(sql, table)) return;
  const check = `${table}_created_before`;
  const index = keyIndex(table);
  const [any] = await sql`SELECT 1 FROM ${sql(table)} LIMIT 1`;
  if (any === undefined) {
    // An empty table (a new database): everything in the swap, which reads no row; the
    // partition of the past holds only back-dated records, months from this one have their own.
    const bound = monthStart(now);
    return swap(sql, table, bound, async (tx) => {
      await tx.unsafe(`ALTER TABLE ${table} ADD CONSTRAINT ${check} CHECK (created_at < ${bound})`);
      await tx.unsafe(`CREATE UNIQUE INDEX ${index} ON ${table} (${KEYS[table]}, created_at)`);
    });
  }
  // 1. The bound: every record stored so far is before it, and so is every record stamped until
  //    well after the swap. A bound left by an earlier run is kept unless it is coming close.
  let bound = await checkedBound(sql, table);
  if (bound !== undefined && bound < now + BOUND_MARGIN_MS) {
    await withShortLocks(sql, (tx) => tx.unsafe(`ALTER TABLE ${table} DROP CONSTRAINT ${check}`));
    bound = undefined;
  }
  if (bound === undefined) {
    // A read of every row, taking no lock that stops ingest.
    const [row] = await sql<{ latest: number | null }[]>`
      SELECT max(created_at) AS latest FROM ${sql(table)}`;
    bound = monthStart(Math.max(now + BOUND_MARGIN_MS, row?.latest ?? 0), 1);
    // 2. NOT VALID: the exclusive lock for a moment, no scan; rows inserted from now on are checked.
    const added = bound;
    await withShortLocks(sql, (tx) =>
      tx.unsafe(
        `ALTER TABLE ${table} ADD CONSTRAINT ${check} CHECK (created_at < ${added}) NOT VALID`,
      ),
    );
  }
  // 3. The scan, under SHARE UPDATE EXCLUSIVE: inserts, updates and deletes go on.
  //    A record dated past the bound that came in before the CHECK fails it: the CHECK goes, and
  //    the next run takes a bound past that record.
  await sql.unsafe(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${check}`).catch(async (error) => {
    if ((error as { code?: unknown } | null)?.code === '23514') {
      await withShortLocks(sql, (tx) => tx.unsafe(`ALTER TABLE ${table} DROP CONSTRAINT ${check}`));
    }
    throw error;
  });
  // 4. The partitioned primary key's index (it must hold the partition key), built concurrently;
  //    one a failed run left invalid is built again.
  const [left] = await sql<{ valid: boolean }[]>`
    SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass(${index})`;
  if (left && !left.valid) await sql.unsafe(`DROP INDEX CONCURRENTLY ${index}`);
  if (!left?.valid) {
    await sql.unsafe(
      `CREATE UNIQUE INDEX CONCURRENTLY ${index} ON ${table} (${KEYS[table]}, created_at)`,
    );
  }
  await swap(sql, table, bound, async () => {});
}

/**
 * The swap, in one short transaction under the table's exclusive lock (`prepare` runs first in
 * it): no statement in it reads the rows.
 */
async function swap(
  sql: Sql,
  table: PartitionedTable,
  bound: number,
  prepare: (tx: Sql) => Promise<void>,
): Promise<void> {
  const index = keyIndex(table);
  const legacy = `${table}_before_${monthName(bound)}`;
  const to = bound;
  await withShortLocks(sql, async (tx) => {
    await tx.unsafe(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    if (await isPartitioned(tx, table)) return;
    await prepare(tx);
    // What the new table takes over: its other indexes, foreign keys and triggers, as defined.
    const indexes = await tx<{ name: string; def: string }[]>`
      SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid = to_regclass(${table}) AND NOT i.indisprimary
         AND c.relname <> ${index}`;
    const keys = await tx<{ name: string; def: string }[]>`
      SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE conrelid = to_regclass(${table}) AND contype = 'f'`;
    const triggers = await tx<{ name: string; def: string }[]>`
      SELECT tgname AS name, pg_get_triggerdef(oid) AS def FROM pg_trigger
       WHERE tgrelid = to_regclass(${table}) AND NOT tgisinternal`;
    const [primary] = await tx<{ name: string }[]>`
      SELECT conname AS name FROM pg_constraint
       WHERE conrelid = to_regclass(${table}) AND contype = 'p'`;
    await tx.unsafe(`ALTER TABLE ${table} RENAME TO ${legacy}`);
    for (const { name } of indexes) {
      await tx.unsafe(
        `ALTER INDEX ${ident(name)} RENAME TO ${ident(`${legacy}${name.slice(table.length)}`)}`,
      );
    }
    for (const { name } of triggers) {
      await tx.unsafe(`DROP TRIGGER ${ident(name)} ON ${legacy}`);
    }
    if (primary) await tx.unsafe(`ALTER TABLE ${legacy} DROP CONSTRAINT ${ident(primary.name)}`);
    await tx.unsafe(
      `ALTER TABLE ${legacy} ADD CONSTRAINT ${legacy}_pkey PRIMARY KEY USING INDEX ${index}`,
    );
    await tx.unsafe(
      `CREATE TABLE ${table} (LIKE ${legacy} INCLUDING DEFAULTS) PARTITION BY RANGE (created_at)`,
    );
    await tx.unsafe(
      `ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY (${KEYS[table]}, created_at)`,
    );
    for (const { def } of indexes) await tx.unsafe(def);
    for (const { name, def } of keys) {
      await tx.unsafe(`ALTER TABLE ${table} ADD CONSTRAINT ${ident(name)} ${def}`);
    }
    const [sequence] = await tx<{ name: string | null }[]>`
      SELECT pg_get_serial_sequence(a.attrelid::regclass::text, a.attname) AS name
        FROM pg_attribute a WHERE a.attrelid = to_regclass(${legacy}) AND a.attname = 'seq'`;
    if (sequence?.name) await tx.unsafe(`ALTER SEQUENCE ${sequence.name} OWNED BY ${table}.seq`);
    // No scan: the validated CHECK proves every row is before the bound.
    await tx.unsafe(
      `ALTER TABLE ${table} ATTACH PARTITION ${legacy} FOR VALUES FROM (MINVALUE) TO (${to})`,
    );
    await tx.unsafe(`CREATE TABLE ${table}_default PARTITION OF ${table} DEFAULT`);
    for (const { def } of triggers) await tx.unsafe(def);
  });
}

/**
 * Makes the monthly partitions from the current month (or the end of the partition of the past)
 * to MONTHS_AHEAD months ahead, each in a short transaction of its own. Records of that month
 * that went to the DEFAULT partition meanwhile (a back-dated import far ahead) move into it.
 */
export async function createAhead(
  sql: Sql,
  table: PartitionedTable,
  now: number,
): Promise<string[]> {
  const created: string[] = [];
  const covered = (await partitionsOf(sql, table)).filter((p) => !p.isDefault);
  const end = monthStart(now, MONTHS_AHEAD + 1);
  for (let from = monthStart(now); from < end; from = monthStart(from, 1)) {
    const to = monthStart(from, 1);
    if (covered.some((p) => (p.from ?? Number.NEGATIVE_INFINITY) < to && (p.to ?? 0) > from)) {
      continue;
    }
    const name = `${table}_p${monthName(from)}`;
    await withShortLocks(sql, async (tx) => {
      await tx.unsafe(`CREATE TABLE ${name} (LIKE ${table} INCLUDING DEFAULTS)`);
      // Not through the parent: these records are in the statistics already (no trigger fires).
      await tx.unsafe(`
        WITH moved AS (
          DELETE FROM ${table}_default WHERE created_at >= ${from} AND created_at < ${to} RETURNING *
        ) INSERT INTO ${name} SELECT * FROM moved`);
      await tx.unsafe(
        `ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES FROM (${from}) TO (${to})`,
      );
    });
    created.push(name);
  }
  return created;
}

export interface PartitionReport {
  /** Tables converted from plain to partitioned in this run. */
  converted: PartitionedTable[];
  /** Monthly partitions made. */
  created: string[];
  /** False when another replica was doing it. */
  ran: boolean;
}

/**
 * Converts what is still plain and makes the partitions ahead, on one connection holding the
 * partitions' advisory lock (another replica doing it: nothing to do).
 */
export async function maintainPartitions(pool: Sql, now = Date.now()): Promise<PartitionReport> {
  const report: PartitionReport = { converted: [], created: [], ran: false };
  const connection = (await pool.reserve()) as unknown as Sql & { release(): void };
  try {
    const [row] = await connection<{ locked: boolean }[]>`
      SELECT pg_try_advisory_lock(${PARTITIONS_LOCK[0]}, ${PARTITIONS_LOCK[1]}) AS locked`;
    if (!row?.locked) return report;
    report.ran = true;
    try {
      for (const table of PARTITIONED_TABLES) {
        if (!(await isPartitioned(connection, table))) {
          await convertTable(connection, table, now);
          report.converted.push(table);
        }
        report.created.push(...(await createAhead(connection, table, now)));
      }
    } finally {
      await connection`SELECT pg_advisory_unlock(${PARTITIONS_LOCK[0]}, ${PARTITIONS_LOCK[1]})`;
    }
    return report;
  } finally {
    connection.release();
  }
}

/** Whether the record tables hold no row (a new database: converted before it serves). */
export async function recordsEmpty(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ empty: boolean }[]>`
    SELECT NOT EXISTS (SELECT 1 FROM events) AND NOT EXISTS (SELECT 1 FROM metrics)
       AND NOT EXISTS (SELECT 1 FROM test_results) AS empty`;
  return row?.empty ?? false;
}

/**
 * Each replica's keeper: maintainPartitions at start (converting an existing database in the
 * background while the server serves) and then every `everyMs`.
 */
export function partitionKeeper(
  pool: Sql,
  everyMs: number,
  onError: (error: unknown) => void,
  onReport: (report: PartitionReport) => void = () => {},
) {
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    running ??= maintainPartitions(pool)
      .then(onReport, onError)
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  return {
    start() {
      void run();
      timer = setInterval(run, everyMs);
      timer.unref();
    },
    /** The run under way, if any (tests wait for the conversion). */
    settled: () => running ?? Promise.resolve(),
    runNow: run,
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
