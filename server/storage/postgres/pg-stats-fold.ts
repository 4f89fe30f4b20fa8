import { seriesOf } from '../../domain/record-facts.js';
import { addSeriesSum, emptySeriesSum, type SeriesSum } from '../../domain/series-sum.js';
import { type FoldEvent, type FoldedSeriesCell, foldEvents, foldMetrics } from '../stats-fold.js';
import { integerArray, integersOf, type Sql } from './pg-database.js';
import { foldWorkflowsInto } from './pg-workflow-cells.js';

/** Records folded in one transaction, at most (bounds memory when a migration queued millions). */
const CHUNK = 20_000;
/** Queue rows looked at per transaction, at most (each row: one statement's records of a table). */
const QUEUE_ROWS = 2_000;
/** An idle replica's turns that skip the queue (it looks once in this many). */
const IDLE_TURNS = 30;
/** The fold's advisory lock (the two-key form: apart from the one-key locks of pg-lock.ts). */
export const FOLD_LOCK = [4_017_221, 3] as const;

/** A float for json_to_recordset: as text, so that an infinite sum stays one (JSON has none). */
const float = (value: number) => String(value);
type StoredSum = Omit<SeriesSum, 'bins' | 'lastSeq'> & {
  lastSeq: number;
  keys: string;
  counts: string;
};

/** A stored cell's bins, from its two arrays as text. */
export function binsOf(keys: string, counts: string): [number, number][] {
  const numbers = integersOf(counts);
  return integersOf(keys).map((bin, i) => [bin, numbers[i] as number]);
}

/**
 * Folds the records the tables' triggers queued (stats_queue) into the statistics cells, as
 * SQLite folds its records: the same cells (stats-fold.ts), off the ingest path. One replica
 * folds at a time (an advisory lock; the others skip their turn), in a transaction that writes
 * the cells and removes the queue rows it folded, so a record is counted in the cells exactly
 * once, and until then read from the records (pg-stats.ts). Each replica tries every `everyMs`,
 * so records of a replica that died are folded by another.
 */
export function pgStatsFold(pool: Sql, everyMs: number) {
  /**
   * Folds one chunk: `more` when it was full (a backlog), `done` when it took all the queue held,
   * `empty` when there was nothing, `locked` when another replica holds the lock.
   */
  async function foldChunk(wait: boolean): Promise<'more' | 'done' | 'empty' | 'locked'> {
    return pool.begin(async (tx) => {
      if (wait) {
        await tx`SELECT pg_advisory_xact_lock(${FOLD_LOCK[0]}, ${FOLD_LOCK[1]})`;
      } else {
        const [row] = await tx<{ locked: boolean }[]>`
          SELECT pg_try_advisory_xact_lock(${FOLD_LOCK[0]}, ${FOLD_LOCK[1]}) AS locked`;
        if (!row?.locked) return 'locked';
      }
      const queued = await tx<{ id: number; events: string; metrics: string }[]>`
        SELECT id, events::text, metrics::text FROM stats_queue ORDER BY id LIMIT ${QUEUE_ROWS}`;
      const ids: number[] = [];
      const eventSeqs: number[] = [];
      const metricSeqs: number[] = [];
      for (const row of queued) {
        if (ids.length > 0 && eventSeqs.length + metricSeqs.length >= CHUNK) break;
        ids.push(row.id);
        eventSeqs.push(...integersOf(row.events));
        metricSeqs.push(...integersOf(row.metrics));
      }
      if (ids.length === 0) return backfillWorkflows(tx as unknown as Sql);
      if (eventSeqs.length > 0) await foldEventsInto(tx as unknown as Sql, eventSeqs);
      if (metricSeqs.length > 0) await foldMetricsInto(tx as unknown as Sql, metricSeqs);
      // Each workflow's hour cells, beside the others (pg-workflow-cells.ts).
      await foldWorkflowsInto(tx as unknown as Sql, eventSeqs, metricSeqs);
      await tx`DELETE FROM stats_queue WHERE id = ANY(${integerArray(ids)}::bigint[])`;
      const full = eventSeqs.length + metricSeqs.length >= CHUNK || ids.length === QUEUE_ROWS;
      if (full) return 'more';
      // The migration's backfill waits: the turn goes on to it (backfillWorkflows).
      const [backfill] = await tx`SELECT 1 FROM workflow_queue LIMIT 1`;
      return backfill ? 'more' : 'done';
    });
  }

  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopping = false;
  // The turns still to fold for records this replica stored: 2, so that records committed just
  // after a turn read the queue (or in a caller's transaction, after the append) are folded at
  // the next. 2 at the start too: records of a migration or of a replica that died may wait. An
  // idle replica still looks every IDLE_TURNS turns, for other replicas' records.
  let storedTurns = 2;
  let idleTurns = 0;

  /** Folds what is queued (unless another replica is folding, or a turn is under way). */
  const turn = () => {
    if (running) return running;
    if (storedTurns === 0 && ++idleTurns < IDLE_TURNS) return undefined;
    storedTurns = Math.max(0, storedTurns - 1);
    idleTurns = 0;
    running = (async () => {
      try {
        // One chunk a turn, unless a backlog waits: under load, folding what arrived during the
        // last chunk again and again cost E8 a tenth of its throughput.
        let folded: Awaited<ReturnType<typeof foldChunk>>;
        do folded = await foldChunk(false);
        while (folded === 'more' && !stopping);
        // Another replica is folding: it may stop short of what this one stored since.
        if (folded === 'locked') storedTurns = Math.max(storedTurns, 1);
      } catch {
        // The database is away (or the pool closing): the records wait for the next turn, and
        // reads add them meanwhile.
        storedTurns = Math.max(storedTurns, 1);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  return {
    /** This replica stored records: they are folded at one of its next two turns. */
    stored() {
      storedTurns = 2;
    },
    start() {
      timer ??= setInterval(turn, everyMs);
      timer.unref();
    },
    /** Stops the turns and waits for the chunk under way (before the pool closes). */
    async stop() {
      stopping = true;
      clearInterval(timer);
      timer = undefined;
      await running;
    },
    /** Folds everything queued, waiting for another replica's fold (tests, the bench's seed). */
    async foldAll() {
      await running;
      while ((await foldChunk(true)) !== 'empty') {}
    },
  };
}

/**
 * With nothing new to fold, a chunk of the records stored before the workflow cells existed
 * (workflow_queue, filled by migration 23) into those cells only: 'more' while some wait.
 */
async function backfillWorkflows(sql: Sql): Promise<'more' | 'empty'> {
  const [row] = await sql<{ id: number; events: string; metrics: string }[]>`
    SELECT id, events::text, metrics::text FROM workflow_queue ORDER BY id LIMIT 1`;
  if (!row) return 'empty';
  await foldWorkflowsInto(sql, integersOf(row.events), integersOf(row.metrics));
  await sql`DELETE FROM workflow_queue WHERE id = ${row.id}`;
  return 'more';
}

async function foldEventsInto(sql: Sql, seqs: number[]) {
  const events = await sql<FoldEvent[]>`
    SELECT project_id AS "projectId", event_type AS "eventType", branch, status,
           created_at AS "createdAt"
      FROM events WHERE seq = ANY(${integerArray(seqs)}::bigint[])`;
  const cells = foldEvents(events);
  // In key order, as every write of these rows (one fold at a time, but a habit that costs nothing).
  await sql`
    INSERT INTO event_cells
           (project_id, unit, start, event_type, branch, success, failure, cancelled, other)
    SELECT p, u, s, e, b, c[1], c[2], c[3], c[4]
      FROM json_to_recordset(${JSON.stringify(
        cells.map((c) => ({
          p: c.projectId,
          u: c.unit,
          s: c.start,
          e: c.eventType,
          b: c.branch,
          c: c.counts,
        })),
      )}::text::json) AS r(p text, u int, s bigint, e text, b text, c int[])
     ORDER BY p, u, s, e, b
    ON CONFLICT (project_id, unit, start, event_type, branch) DO UPDATE SET
      success = event_cells.success + excluded.success,
      failure = event_cells.failure + excluded.failure,
      cancelled = event_cells.cancelled + excluded.cancelled,
      other = event_cells.other + excluded.other`;
}

async function foldMetricsInto(sql: Sql, seqs: number[]) {
  const rows = await sql<
    { seq: number; projectId: string; branch: string | null; t: number; payload: string }[]
  >`
    SELECT seq, project_id AS "projectId", branch, created_at AS t, payload
      FROM metrics WHERE seq = ANY(${integerArray(seqs)}::bigint[]) ORDER BY seq`;
  const { cells } = foldMetrics(
    rows.map(({ payload, ...row }) => ({
      ...row,
      leaves: seriesOf(JSON.parse(payload) as Record<string, unknown>),
    })),
  );
  await saveCells(
    sql,
    cells.filter((cell) => cell.branch !== null),
    true,
  );
  await saveCells(
    sql,
    cells.filter((cell) => cell.branch === null),
    false,
  );
}

/**
 * Cells written per statement: a chunk of wide records (an import's 10,000 records of 100 keys,
 * a bulk load's queue) folds into hundreds of thousands of cells, and one JSON text of them all
 * passed V8's longest string (the tenants benchmark's seed: RangeError in JSON.stringify).
 */
const CELLS_PER_STATEMENT = 5_000;

/** Adds the cells to the stored ones (series_cells with a branch, else series_totals). */
async function saveCells(sql: Sql, cells: FoldedSeriesCell[], withBranch: boolean) {
  for (let i = 0; i < cells.length; i += CELLS_PER_STATEMENT)
    await saveCellSlice(sql, cells.slice(i, i + CELLS_PER_STATEMENT), withBranch);
}

/** saveCells for at most CELLS_PER_STATEMENT cells, each of another (key, branch, unit, start). */
async function saveCellSlice(sql: Sql, cells: FoldedSeriesCell[], withBranch: boolean) {
  if (cells.length === 0) return;
  const table = sql(withBranch ? 'series_cells' : 'series_totals');
  // The key's length keeps the id unambiguous whatever the key and the branch hold.
  const idOf = (c: { p: string; k: string; b?: string | null; u: number; s: number }) =>
    `${c.p}\n${c.u}\n${c.s}\n${c.k.length}\n${c.k}${c.b ?? ''}`;
  const at = cells.map((c) => ({
    p: c.projectId,
    k: c.key,
    ...(withBranch ? { b: c.branch } : {}),
    u: c.unit,
    s: c.start,
  }));
  const stored = await sql<
    (StoredSum & { p: string; k: string; b?: string; u: number; s: number })[]
  >`
    SELECT c.project_id AS p, c.key AS k, ${withBranch ? sql`c.branch AS b,` : sql``}
           c.unit AS u, c.start AS s, c.count, c.min, c.max, c.sum, c.last_at AS "lastAt",
           c.last_seq AS "lastSeq", c.last_value AS "lastValue",
           c.bin_keys::text AS keys, c.bin_counts::text AS counts
      FROM json_to_recordset(${JSON.stringify(at)}::text::json)
           AS r(p text, k text, b text, u int, s bigint)
      JOIN ${table} c ON c.project_id = r.p AND c.key = r.k AND c.unit = r.u AND c.start = r.s
           ${withBranch ? sql`AND c.branch = r.b` : sql``}`;
  const storedById = new Map(stored.map((row) => [idOf(row), row]));
  const merged = cells.map((cell, n) => {
    const where = at[n] as (typeof at)[number];
    const total = emptySeriesSum();
    const known = storedById.get(idOf(where));
    // Which of two equal times is last is decided by lastSeq, whichever is added first.
    if (known) addSeriesSum(total, { ...known, bins: binsOf(known.keys, known.counts) });
    addSeriesSum(total, cell.sum);
    return {
      ...where,
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
    INSERT INTO ${table} (project_id, key, ${withBranch ? sql`branch,` : sql``} unit, start,
           count, min, max, sum, last_at, last_seq, last_value, bin_keys, bin_counts)
    SELECT p, k, ${withBranch ? sql`b,` : sql``} u, s, count, min, max, sum, at, seq, last,
           keys, counts
      FROM json_to_recordset(${JSON.stringify(merged)}::text::json)
           AS r(p text, k text, b text, u int, s bigint, count bigint, min float8, max float8,
                sum float8, at bigint, seq bigint, last float8, keys int[], counts bigint[])
     ORDER BY p, k, b, u, s
    ON CONFLICT (project_id, key, ${withBranch ? sql`branch,` : sql``} unit, start) DO UPDATE SET
      count = excluded.count, min = excluded.min, max = excluded.max, sum = excluded.sum,
      last_at = excluded.last_at, last_seq = excluded.last_seq,
      last_value = excluded.last_value, bin_keys = excluded.bin_keys,
      bin_counts = excluded.bin_counts`;
}
