import { seriesOf } from '../../domain/record-facts.js';
import { type FoldEvent, foldEvents, foldMetrics } from '../stats-fold.js';
import {
  addEventCells,
  addSeriesCells,
  type CellTable,
  type SeriesCellOf,
} from './pg-cell-writes.js';
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
  await addEventCells(
    sql,
    EVENT_CELLS,
    foldEvents(events).map((c) => ({
      key: { p: c.projectId, u: c.unit, s: c.start, e: c.eventType, b: c.branch },
      counts: c.counts,
    })),
  );
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
  const byBranch: SeriesCellOf<'p' | 'k' | 'b' | 'u' | 's'>[] = [];
  const totals: SeriesCellOf<'p' | 'k' | 'u' | 's'>[] = [];
  for (const { projectId: p, key: k, branch: b, unit: u, start: s, sum } of cells) {
    if (b === null) totals.push({ key: { p, k, u, s }, sum });
    else byBranch.push({ key: { p, k, b, u, s }, sum });
  }
  await addSeriesCells(sql, SERIES_CELLS, byBranch);
  await addSeriesCells(sql, SERIES_TOTALS, totals);
}

/** The statistics cells' tables, by their keys (pg-cell-writes.ts). */
const EVENT_CELLS: CellTable<'p' | 'u' | 's' | 'e' | 'b'> = {
  name: 'event_cells',
  key: {
    p: ['project_id', 'text'],
    u: ['unit', 'int'],
    s: ['start', 'bigint'],
    e: ['event_type', 'text'],
    b: ['branch', 'text'],
  },
};
const SERIES_CELLS: CellTable<'p' | 'k' | 'b' | 'u' | 's'> = {
  name: 'series_cells',
  key: {
    p: ['project_id', 'text'],
    k: ['key', 'text'],
    b: ['branch', 'text'],
    u: ['unit', 'int'],
    s: ['start', 'bigint'],
  },
};
const SERIES_TOTALS: CellTable<'p' | 'k' | 'u' | 's'> = {
  name: 'series_totals',
  key: {
    p: ['project_id', 'text'],
    k: ['key', 'text'],
    u: ['unit', 'int'],
    s: ['start', 'bigint'],
  },
};
