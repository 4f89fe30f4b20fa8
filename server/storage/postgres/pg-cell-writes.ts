import { addSeriesSum, emptySeriesSum, type SeriesSum } from '../../domain/series-sum.js';
import { integersOf, type Sql } from './pg-database.js';

/**
 * How the fold writes its cells on PostgreSQL, one way for every table of them: the statistics
 * cells (series_cells, series_totals, event_cells, pg-stats-fold.ts) and the workflow cells
 * (workflow_series_cells, workflow_event_cells, pg-workflow-cells.ts) differ only in the
 * columns of their key, described here once per table.
 */

/** A column of a cell table's key: its name in the statement's JSON (short: one a cell) and its type. */
type KeyColumn = readonly [column: string, type: 'text' | 'int' | 'bigint'];

/** A cell table: its name and its key's columns by their names in the JSON, in the key's order. */
export interface CellTable<K extends string> {
  name: string;
  key: Readonly<Record<K, KeyColumn>>;
}

/** A cell's key: the values of its table's key columns, by their names in the JSON. */
type KeyOf<K extends string> = Record<K, string | number>;

/** A cell of series to add to a table of key K. */
export interface SeriesCellOf<K extends string> {
  key: KeyOf<K>;
  sum: SeriesSum;
}

/**
 * Cells written per statement: a chunk of wide records (an import's 10,000 records of 100 keys,
 * a bulk load's queue) folds into hundreds of thousands of cells, and one JSON text of them all
 * passed V8's longest string (the tenants benchmark's seed: RangeError in JSON.stringify).
 */
const CELLS_PER_STATEMENT = 5_000;

/** `write` for each CELLS_PER_STATEMENT cells of `cells`, one after the other. */
async function perStatement<T>(cells: T[], write: (slice: T[]) => Promise<void>) {
  for (let i = 0; i < cells.length; i += CELLS_PER_STATEMENT)
    await write(cells.slice(i, i + CELLS_PER_STATEMENT));
}

/** A float for json_to_recordset: as text, so that an infinite sum stays one (JSON has none). */
const float = (value: number) => String(value);

/** A stored cell's bins, from its two arrays as text. */
export function binsOf(keys: string, counts: string): [number, number][] {
  const numbers = integersOf(counts);
  return integersOf(keys).map((bin, i) => [bin, numbers[i] as number]);
}

/** The SQL of a table's key, from its descriptor (our constants: no outside text reaches it). */
function keySql<K extends string>(sql: Sql, table: CellTable<K>) {
  const columns = Object.entries<KeyColumn>(table.key);
  const text = (each: (as: string, column: string, type: string) => string) =>
    sql.unsafe(columns.map(([as, [column, type]]) => each(as, column, type)).join(', '));
  return {
    /** The key's columns, as the table names them (insert, conflict target). */
    columns: text((_, column) => column),
    /** The JSON's names of the key (select, order). */
    names: text((as) => as),
    /** The JSON's key as a record (json_to_recordset's column definitions). */
    record: text((as, _, type) => `${as} ${type}`),
    /** The stored cell's key under the JSON's names. */
    stored: text((as, column) => `c.${column} AS ${as}`),
    /** The stored cell of the JSON's key. */
    join: sql.unsafe(columns.map(([as, [column]]) => `c.${column} = r.${as}`).join(' AND ')),
  };
}

/**
 * Adds counts of events to the stored cells (event_cells, workflow_event_cells): success,
 * failure, cancelled and other, in that order.
 */
export async function addEventCells<K extends string>(
  sql: Sql,
  table: CellTable<K>,
  cells: { key: KeyOf<K>; counts: number[] }[],
): Promise<void> {
  const key = keySql(sql, table);
  const name = sql(table.name);
  // In key order, as every write of these rows (one fold at a time, but a habit that costs nothing).
  await perStatement(cells, async (slice) => {
    await sql`
      INSERT INTO ${name} (${key.columns}, success, failure, cancelled, other)
      SELECT ${key.names}, c[1], c[2], c[3], c[4]
        FROM json_to_recordset(${JSON.stringify(
          slice.map((cell) => ({ ...cell.key, c: cell.counts })),
        )}::text::json) AS r(${key.record}, c int[])
       ORDER BY ${key.names}
      ON CONFLICT (${key.columns}) DO UPDATE SET
        success = ${name}.success + excluded.success,
        failure = ${name}.failure + excluded.failure,
        cancelled = ${name}.cancelled + excluded.cancelled,
        other = ${name}.other + excluded.other`;
  });
}

type StoredSum = Omit<SeriesSum, 'bins' | 'lastSeq'> & {
  lastSeq: number;
  keys: string;
  counts: string;
};

/**
 * Adds the sums of the cells to the stored ones (series_cells, series_totals,
 * workflow_series_cells): each cell of another key.
 */
export async function addSeriesCells<K extends string>(
  sql: Sql,
  table: CellTable<K>,
  cells: SeriesCellOf<K>[],
): Promise<void> {
  const names = Object.keys(table.key) as K[];
  // Lengths keep the id unambiguous whatever the texts hold.
  const idOf = (key: KeyOf<K>) =>
    names.map((as) => `${String(key[as]).length}\n${key[as]}`).join('');
  const key = keySql(sql, table);
  const name = sql(table.name);
  await perStatement(cells, async (slice) => {
    if (slice.length === 0) return;
    const at = slice.map((cell) => cell.key);
    const stored = await sql<(StoredSum & KeyOf<K>)[]>`
      SELECT ${key.stored}, c.count, c.min, c.max, c.sum, c.last_at AS "lastAt",
             c.last_seq AS "lastSeq", c.last_value AS "lastValue",
             c.bin_keys::text AS keys, c.bin_counts::text AS counts
        FROM json_to_recordset(${JSON.stringify(at)}::text::json) AS r(${key.record})
        JOIN ${name} c ON ${key.join}`;
    const storedById = new Map(stored.map((row) => [idOf(row), row]));
    const merged = slice.map((cell) => {
      const total = emptySeriesSum();
      const known = storedById.get(idOf(cell.key));
      // Which of two equal times is last is decided by lastSeq, whichever is added first.
      if (known) addSeriesSum(total, { ...known, bins: binsOf(known.keys, known.counts) });
      addSeriesSum(total, cell.sum);
      return {
        ...cell.key,
        count: total.count,
        min: float(total.min),
        max: float(total.max),
        sum: float(total.sum),
        at: total.lastAt,
        seq: total.lastSeq,
        last: float(total.lastValue),
        keys: [...total.bins.keys()],
        counts: [...total.bins.values()],
      };
    });
    await sql`
      INSERT INTO ${name} (${key.columns},
             count, min, max, sum, last_at, last_seq, last_value, bin_keys, bin_counts)
      SELECT ${key.names}, count, min, max, sum, at, seq, last, keys, counts
        FROM json_to_recordset(${JSON.stringify(merged)}::text::json)
             AS r(${key.record}, count bigint, min float8, max float8, sum float8, at bigint,
                  seq bigint, last float8, keys int[], counts bigint[])
       ORDER BY ${key.names}
      ON CONFLICT (${key.columns}) DO UPDATE SET
        count = excluded.count, min = excluded.min, max = excluded.max, sum = excluded.sum,
        last_at = excluded.last_at, last_seq = excluded.last_seq,
        last_value = excluded.last_value, bin_keys = excluded.bin_keys,
        bin_counts = excluded.bin_counts`;
  });
}
