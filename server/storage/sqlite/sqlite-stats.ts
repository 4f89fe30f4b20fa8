import type { Statement } from 'better-sqlite3';
import { byteOrder } from '../../domain/byte-order.js';
import {
  branchOf,
  seriesOf,
  statusOf,
  workflowOf,
  workflowOfText,
} from '../../domain/record-facts.js';
import { addSeriesSum, emptySeriesSum, type SeriesSum } from '../../domain/series-sum.js';
import { decodeBins, encodeBins } from '../../domain/sketch.js';
import { cellBucketOf, HOUR_MS, type ReadPlan } from '../../domain/time-buckets.js';
import { newestFirst } from '../record-pages.js';
import { type FoldEvent, type FoldMetric, foldEvents, foldMetrics } from '../stats-fold.js';
import type { SeriesCell, SeriesKeyInfo, StatsRepository } from '../storage.js';
import { unpackSeriesSum } from './series-sum-aggregate.js';
import type { Db } from './sqlite-database.js';
import type { RecordTable, SqliteTimeMarks } from './sqlite-time-marks.js';
import { sqliteWorkflowCellWriter, sqliteWorkflowReads } from './sqlite-workflow-cells.js';
import type { Sync } from './sync.js';

/** Branches listed for a project's filter, at most. */
const MAX_BRANCHES = 200;
/**
 * How often the new records are folded into the cells, at most. A fold holds the event loop for
 * its whole length (about a microsecond per value folded), and every request waits for it: once a
 * second, under a saturating E8, each fold stalled the server for 16 to 44 ms and E8's p99 (wrk)
 * was about 18 ms; every 100 ms, folds take about 2 ms each (at most 8 measured), the same time in
 * all, and E8's p99 is about 7 to 10 ms (BENCHMARKS.md, issue 31). Folding each group commit
 * (hundreds a second) cost E8 a tenth of its throughput: a fold's cells are written once per fold,
 * however few its records.
 */
const FOLD_EVERY_MS = 100;
/** ...unless this many wait: bounds what a read adds from the records themselves. */
const FOLD_AFTER_RECORDS = 20_000;
/** Records folded into cells at a time: bounds memory when a backfill or a seed indexes millions. */
const CHUNK = 20_000;

/** A metric as the fold needs it, with its workflow or CI job (null: none). */
export type AppendedMetric = Omit<FoldMetric, 'seq'> & { workflow: string | null };
/** An event as the fold needs it, with its workflow or CI job (null: none). */
export type AppendedEvent = FoldEvent & { workflow: string | null };

/**
 * Keeps the statistics cells up to date with the records: `index` folds the events and metrics
 * stored after the given positions into per-minute and per-hour cells and the series keys. It
 * runs inside the transaction that stored them (just before its commit), reading them back, so a
 * record rolled back is never counted.
 */
export function sqliteStatsIndex(db: Db) {
  const newEventSeqs = db
    .prepare(`SELECT seq FROM events WHERE seq > ? ORDER BY seq LIMIT ${CHUNK}`)
    .pluck();
  const eventAt = db.prepare(
    `SELECT project_id AS projectId, event_type AS eventType, branch, status,
            created_at AS createdAt, payload FROM events WHERE seq = ?`,
  );
  const newMetricSeqs = db
    .prepare(`SELECT seq FROM metrics WHERE seq > ? ORDER BY seq LIMIT ${CHUNK}`)
    .pluck();
  const metricAt = db.prepare(
    'SELECT project_id AS projectId, branch, created_at AS t, payload FROM metrics WHERE seq = ?',
  );
  // The metrics appended since the last fold, by seq, as `append` saw them (it parsed them
  // already). The fold lists the seqs from the database, so one rolled back is never counted
  // (its seq is either gone or taken by the record stored in its place, which replaced it here);
  // a record stored by another process is read from the table.
  let appended = new Map<number, AppendedMetric>();
  // The same for events: what the fold needs of them, kept by `append`.
  let appendedEvents = new Map<number, AppendedEvent>();
  const eventOf = (seq: number): AppendedEvent => {
    const known = appendedEvents.get(seq);
    if (known) return known;
    const { payload, ...row } = eventAt.get(seq) as FoldEvent & { payload: string | null };
    return { ...row, workflow: workflowOfText(payload) };
  };
  const metricOf = (seq: number): AppendedMetric => {
    const known = appended.get(seq);
    if (known) return known;
    const { payload, ...row } = metricAt.get(seq) as Omit<AppendedMetric, 'leaves' | 'workflow'> & {
      payload: string;
    };
    const parsed = JSON.parse(payload) as Record<string, unknown>;
    return { ...row, leaves: seriesOf(parsed), workflow: workflowOf(parsed) };
  };
  const addEvents = db.prepare(
    `INSERT INTO event_cells (project_id, unit, start, event_type, branch, success, failure, cancelled, other)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET success = success + excluded.success,
       failure = failure + excluded.failure, cancelled = cancelled + excluded.cancelled,
       other = other + excluded.other`,
  );
  // Cells of one branch (series_cells), and of all branches together (series_totals).
  const cellOf = {
    branch: db.prepare(
      `SELECT count, min, max, sum, last_at AS lastAt, last_value AS lastValue, bins
         FROM series_cells WHERE project_id = ? AND key = ? AND unit = ? AND start = ? AND branch = ?`,
    ),
    total: db.prepare(
      `SELECT count, min, max, sum, last_at AS lastAt, last_value AS lastValue, bins
         FROM series_totals WHERE project_id = ? AND key = ? AND unit = ? AND start = ?`,
    ),
  };
  const saveCellOf = {
    branch: db.prepare(
      `INSERT OR REPLACE INTO series_cells
         (project_id, key, unit, start, branch, count, min, max, sum, last_at, last_value, bins)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    total: db.prepare(
      `INSERT OR REPLACE INTO series_totals
         (project_id, key, unit, start, count, min, max, sum, last_at, last_value, bins)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
  const addSeries = db.prepare(
    `INSERT INTO series (project_id, key, count, last_at, last_value) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET count = count + excluded.count,
       last_value = CASE WHEN excluded.last_at >= last_at THEN excluded.last_value ELSE last_value END,
       last_at = MAX(last_at, excluded.last_at)`,
  );
  const addBranch = db.prepare('INSERT OR IGNORE INTO branches (project_id, branch) VALUES (?, ?)');
  // Each workflow's (or CI job's) hour cells, beside the others (sqlite-workflow-cells.ts);
  // none while an earlier migration folds (migration 25 then adds the records folded so far).
  const hasWorkflowCells =
    db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'workflow_event_cells'")
      .get() !== undefined;
  const workflowCells = hasWorkflowCells
    ? sqliteWorkflowCellWriter(db)
    : { events: () => {}, metrics: () => {} };
  const progress = db.prepare('SELECT events, metrics FROM stats_progress');
  const saveProgress = db.prepare('UPDATE stats_progress SET events = ?, metrics = ?');

  /** Folds one chunk of events after `after` into their cells; returns the last one folded. */
  function indexEvents(after: number): number {
    const seqs = newEventSeqs.all(after) as number[];
    const events = seqs.map(eventOf);
    workflowCells.events(
      events.flatMap((e) => (e.workflow === null ? [] : [{ ...e, workflow: e.workflow }])),
    );
    for (const { projectId, unit, start, eventType, branch, counts } of foldEvents(events)) {
      addEvents.run(projectId, unit, start, eventType, branch, ...counts);
      if (unit === HOUR_MS && branch !== '') addBranch.run(projectId, branch);
    }
    return seqs.at(-1) ?? after;
  }

  /** Folds one chunk of metrics after `after` into their cells and keys; returns the last one. */
  function indexMetrics(after: number): number {
    const seqs = newMetricSeqs.all(after) as number[];
    const metrics = seqs.map(metricOf);
    workflowCells.metrics(
      metrics.flatMap((m) => (m.workflow === null ? [] : [{ ...m, workflow: m.workflow }])),
    );
    const { cells, keys } = foldMetrics(metrics);
    for (const { projectId, key, unit, start, branch, sum } of cells) {
      if (unit === HOUR_MS && branch) addBranch.run(projectId, branch);
      const at =
        branch === null ? [projectId, key, unit, start] : [projectId, key, unit, start, branch];
      const which = branch === null ? 'total' : 'branch';
      const stored = cellOf[which].get(...at) as
        | (Omit<SeriesSum, 'bins'> & { bins: Uint8Array })
        | undefined;
      // The stored cell holds earlier records: added first, so a tie goes to the new ones.
      const total = emptySeriesSum();
      if (stored) addSeriesSum(total, { ...stored, bins: decodeBins(stored.bins) });
      addSeriesSum(total, sum);
      saveCellOf[which].run(
        ...at,
        total.count,
        total.min,
        total.max,
        total.sum,
        total.lastAt,
        total.lastValue,
        encodeBins(total.bins),
      );
    }
    for (const { projectId, key, sum } of keys) {
      addSeries.run(projectId, key, sum.count, sum.lastAt, sum.lastValue);
    }
    return seqs.at(-1) ?? after;
  }

  const exhaust = (index: (after: number) => number, after: number) => {
    let last = after;
    for (let next = index(last); next !== last; next = index(last)) last = next;
    return last;
  };

  const fold = (from: { events: number; metrics: number }) => {
    const to = {
      events: exhaust(indexEvents, from.events),
      metrics: exhaust(indexMetrics, from.metrics),
    };
    saveProgress.run(to.events, to.metrics);
    // Whatever was not folded now was rolled back.
    appended = new Map();
    appendedEvents = new Map();
    return to;
  };

  // The records after `indexed` (committed, not folded yet) are read raw by `sqliteStats`.
  let indexed = progress.get() as { events: number; metrics: number };
  let pending = indexed;
  let foldedAt = 0;
  let sinceFold = 0;

  return {
    /** Keeps a metric's leaves for the fold (called by `append`, inside the transaction). */
    appended(seq: number, metric: AppendedMetric): void {
      sinceFold += 1;
      appended.set(seq, metric);
    },
    /** Keeps what the fold needs of an event (called by `append`, inside the transaction). */
    appendedEvent(seq: number, event: AppendedEvent): void {
      sinceFold += 1;
      appendedEvents.set(seq, event);
    },
    /**
     * Folds what was stored since the last fold, at most every FOLD_EVERY_MS (or when many
     * records wait). Runs inside the transaction about to commit, so the cells and the records
     * always agree on disk.
     */
    beforeCommit(now = Date.now()): void {
      pending = indexed;
      if (sinceFold === 0 || (now - foldedAt < FOLD_EVERY_MS && sinceFold < FOLD_AFTER_RECORDS)) {
        return;
      }
      pending = fold(indexed);
      foldedAt = now;
      sinceFold = 0;
    },
    /** The transaction committed: what it folded is indexed for good. */
    committed(): void {
      indexed = pending;
    },
    /** The last records folded; later ones are read from the records themselves. */
    watermark: () => indexed,
    /** Folds everything not folded yet (at start-up, in the migration, after the bench's seed). */
    foldAll(): void {
      indexed = pending = fold(indexed);
    },
  };
}

export type SqliteStatsIndex = ReturnType<typeof sqliteStatsIndex>;

/** The parameters of a raw span's two halves: its seq range, then its imported rows. */
export function rawSpanParameters(
  marks: SqliteTimeMarks,
  table: RecordTable,
  projectId: string,
  span: { from: number; to: number },
  extra: unknown[],
): unknown[] {
  const [lo, hi] = marks.seqRange(table, span.from, span.to);
  return [
    projectId,
    lo,
    hi,
    span.from,
    span.to,
    ...extra,
    projectId,
    span.from,
    span.to,
    lo,
    hi,
    ...extra,
  ];
}

/** Reads the cells and raw records a read plan names. */
export function sqliteStats(
  db: Db,
  marks: SqliteTimeMarks,
  index: SqliteStatsIndex,
): Sync<StatsRepository> {
  // The records not folded into cells yet: at most FOLD_EVERY_MS' worth, or FOLD_AFTER_RECORDS.
  const metricTail = db.prepare(
    `SELECT created_at AS t, branch, payload FROM metrics
      WHERE seq > ? AND project_id = ? ORDER BY seq`,
  );
  const eventTail = db.prepare(
    `SELECT created_at AS t, branch, event_type AS eventType, status FROM events
      WHERE seq > ? AND project_id = ? ORDER BY seq`,
  );
  const metricsAfterFold = (projectId: string) =>
    (
      metricTail.all(index.watermark().metrics, projectId) as {
        t: number;
        branch: string | null;
        payload: string;
      }[]
    ).map((row) => ({ ...row, payload: JSON.parse(row.payload) as Record<string, unknown> }));

  const keysOf = db.prepare(
    `SELECT key, count, last_value AS lastValue, last_at AS lastAt FROM series
      WHERE project_id = ? AND key > ? ORDER BY key LIMIT ?`,
  );
  const keyOf = db.prepare(
    `SELECT key, count, last_value AS lastValue, last_at AS lastAt FROM series
      WHERE project_id = ? AND key = ?`,
  );
  /** `keys` (the folded ones) with the records not folded yet whose keys `wanted` accepts. */
  const withTail = (
    projectId: string,
    keys: Map<string, SeriesKeyInfo>,
    wanted: (key: string) => boolean,
  ) => {
    for (const record of metricsAfterFold(projectId)) {
      for (const [key, value] of seriesOf(record.payload)) {
        if (!wanted(key)) continue;
        const info = keys.get(key) ?? { key, count: 0, lastValue: value, lastAt: record.t };
        info.count += 1;
        if (record.t >= info.lastAt) {
          info.lastAt = record.t;
          info.lastValue = value;
        }
        keys.set(key, info);
      }
    }
    return keys;
  };
  // One branch from its cells; all branches from their totals (a third of the cells to read).
  // A span's cells are added up in the scan (series-sum-aggregate.ts): one packed row a span.
  const seriesCells = (withBranch: boolean) =>
    db
      .prepare(
        `SELECT series_sum(count, min, max, sum, last_at, last_value, bins)
           FROM ${withBranch ? 'series_cells' : 'series_totals'}
          WHERE project_id = ? AND key = ? AND unit = ? AND start >= ? AND start < ?
          ${withBranch ? 'AND branch = ?' : ''}`,
      )
      .pluck();
  const seriesCellsBy = { any: seriesCells(false), branch: seriesCells(true) };
  // A raw span: the seq range the marks give, plus the imported (back-dated) rows of the span
  // outside that range, found on their partial index (docs/decisions.md); no row read twice.
  const rawMetrics = (withBranch: boolean) =>
    db.prepare(
      `SELECT created_at AS t, payload FROM metrics
        WHERE project_id = ? AND seq >= ? AND seq < ? AND created_at >= ? AND created_at < ?
        ${withBranch ? 'AND branch = ?' : ''}
       UNION ALL
       SELECT created_at AS t, payload FROM metrics
        WHERE project_id = ? AND imported = 1 AND created_at >= ? AND created_at < ?
          AND NOT (seq >= ? AND seq < ?) ${withBranch ? 'AND branch = ?' : ''}`,
    );
  const rawMetricsBy = { any: rawMetrics(false), branch: rawMetrics(true) };
  const eventStatements = new Map<string, Statement<unknown[]>>();
  const eventStatement = (kind: 'cells' | 'raw', branch: boolean, eventType: boolean) => {
    const id = `${kind}${branch}${eventType}`;
    let statement = eventStatements.get(id);
    if (!statement) {
      const filters = `${branch ? 'AND branch = ?' : ''} ${eventType ? 'AND event_type = ?' : ''}`;
      statement = db.prepare(
        // A span's cells added up here, in one row (zeros when none): thousands of cells a
        // month on a busy project, each row an object in JavaScript otherwise (issue 28).
        kind === 'cells'
          ? `SELECT total(success) AS success, total(failure) AS failure,
                    total(cancelled) AS cancelled, total(other) AS other FROM event_cells
              WHERE project_id = ? AND unit = ? AND start >= ? AND start < ? ${filters}`
          : `SELECT status FROM events
              WHERE project_id = ? AND seq >= ? AND seq < ? AND created_at >= ? AND created_at < ?
              ${filters}
             UNION ALL
             SELECT status FROM events
              WHERE project_id = ? AND imported = 1 AND created_at >= ? AND created_at < ?
                AND NOT (seq >= ? AND seq < ?) ${filters}`,
      );
      eventStatements.set(id, statement);
    }
    return statement;
  };

  const branchesOf = db
    .prepare(
      `SELECT branch FROM branches WHERE project_id = ?
       UNION
       SELECT branch FROM events WHERE seq > ? AND project_id = ? AND branch IS NOT NULL
       UNION
       SELECT branch FROM metrics WHERE seq > ? AND project_id = ? AND branch IS NOT NULL
       ORDER BY 1 LIMIT ${MAX_BRANCHES}`,
    )
    .pluck();

  // The latest event with a status by (time, seq): the newest stored in time order, read on the
  // (project, seq) index, against the newest imported one, read on its partial index by time.
  const latestStatusOf = new Map<string, [Statement<unknown[]>, Statement<unknown[]>]>();
  type LatestStatus = { status: string; eventType: string; createdAt: number; seq: number };
  const latestStatusEvent = (
    projectId: string,
    filter: { branch?: string | undefined; eventType?: string | undefined },
  ): LatestStatus | undefined => {
    const shape = `${filter.branch !== undefined}${filter.eventType !== undefined}`;
    let statements = latestStatusOf.get(shape);
    if (!statements) {
      const query = (imported: 0 | 1, order: string) =>
        db.prepare(
          `SELECT status, event_type AS eventType, created_at AS createdAt, seq FROM events
            WHERE project_id = ? AND imported = ${imported} AND status IS NOT NULL
            ${filter.branch !== undefined ? 'AND branch = ?' : ''}
            ${filter.eventType !== undefined ? 'AND event_type = ?' : ''}
            ORDER BY ${order} LIMIT 1`,
        );
      statements = [query(0, 'seq DESC'), query(1, 'created_at DESC, seq DESC')];
      latestStatusOf.set(shape, statements);
    }
    const extra = [filter.branch, filter.eventType].filter((value) => value !== undefined);
    const [stored, imported] = statements.map(
      (statement) => statement.get(projectId, ...extra) as LatestStatus | undefined,
    );
    if (!stored || !imported) return stored ?? imported;
    return newestFirst(stored, imported) <= 0 ? stored : imported;
  };

  return {
    ...sqliteWorkflowReads(db, marks, index),

    branches(projectId) {
      const { events, metrics } = index.watermark();
      return branchesOf.all(projectId, events, projectId, metrics, projectId) as string[];
    },

    latestStatus(projectId, filter) {
      return latestStatusEvent(projectId, filter)?.status ?? null;
    },

    latestStatusEvent(projectId, filter) {
      const found = latestStatusEvent(projectId, filter);
      return found ? { status: found.status, eventType: found.eventType } : null;
    },

    seriesKeys(projectId, { after, limit }) {
      const folded = keysOf.all(projectId, after ?? '', limit) as SeriesKeyInfo[];
      const keys = withTail(
        projectId,
        new Map(folded.map((info) => [info.key, info])),
        // A key of the tail past a full page's last cannot be on this page.
        (key) =>
          (after === undefined || byteOrder(key, after) > 0) &&
          (folded.length < limit || byteOrder(key, (folded.at(-1) as SeriesKeyInfo).key) < 0),
      );
      return [...keys.values()].sort((a, b) => byteOrder(a.key, b.key)).slice(0, limit);
    },

    seriesKey(projectId, key) {
      const found = keyOf.get(projectId, key) as SeriesKeyInfo | undefined;
      const keys = new Map(found ? [[key, found]] : []);
      return withTail(projectId, keys, (k) => k === key).get(key);
    },

    seriesData(projectId, key, branch, plan: ReadPlan) {
      const statement = branch === undefined ? seriesCellsBy.any : seriesCellsBy.branch;
      const extra = branch === undefined ? [] : [branch];
      const cells: SeriesCell[] = [];
      for (const span of plan.cells) {
        const packed = statement.get(
          projectId,
          key,
          span.unit,
          span.from,
          span.to,
          ...extra,
        ) as Buffer | null;
        if (packed !== null) cells.push({ ...unpackSeriesSum(packed), bucket: span.bucket });
      }
      const raw = branch === undefined ? rawMetricsBy.any : rawMetricsBy.branch;
      const records = plan.raw.flatMap((span) =>
        (
          raw.all(...rawSpanParameters(marks, 'metrics', projectId, span, extra)) as {
            t: number;
            payload: string;
          }[]
        ).map((row) => ({
          bucket: span.bucket,
          t: row.t,
          payload: JSON.parse(row.payload) as Record<string, unknown>,
        })),
      );
      for (const record of metricsAfterFold(projectId)) {
        if (branch !== undefined && record.branch !== branch) continue;
        const bucket = cellBucketOf(plan, record.t);
        if (bucket !== undefined) records.push({ bucket, t: record.t, payload: record.payload });
      }
      return { cells, records };
    },

    eventData(projectId, filter, plan) {
      const extra = [filter.branch, filter.eventType].filter((value) => value !== undefined);
      const cellsOf = eventStatement(
        'cells',
        filter.branch !== undefined,
        filter.eventType !== undefined,
      );
      const cells = plan.cells.flatMap((span) =>
        (
          cellsOf.all(projectId, span.unit, span.from, span.to, ...extra) as {
            success: number;
            failure: number;
            cancelled: number;
            other: number;
          }[]
        ).map((row) => ({ ...row, bucket: span.bucket })),
      );
      const rawOf = eventStatement(
        'raw',
        filter.branch !== undefined,
        filter.eventType !== undefined,
      );
      const events = plan.raw.flatMap((span) =>
        (
          rawOf.all(...rawSpanParameters(marks, 'events', projectId, span, extra)) as {
            status: string | null;
          }[]
        ).map((row) => ({
          bucket: span.bucket,
          status: row.status,
        })),
      );
      const tail = eventTail.all(index.watermark().events, projectId) as {
        t: number;
        branch: string | null;
        eventType: string;
        status: string | null;
      }[];
      for (const event of tail) {
        if (filter.branch !== undefined && event.branch !== filter.branch) continue;
        if (filter.eventType !== undefined && event.eventType !== filter.eventType) continue;
        const bucket = cellBucketOf(plan, event.t);
        if (bucket !== undefined) events.push({ bucket, status: event.status });
      }
      return { cells, events };
    },
  };
}

/** The branch and status columns of records stored before they existed, a chunk at a time. */
export function backfillRecordFacts(db: Db): void {
  const events = db.prepare(
    `SELECT seq, payload FROM events WHERE seq > ? AND payload IS NOT NULL ORDER BY seq LIMIT ${CHUNK}`,
  );
  const setEvent = db.prepare('UPDATE events SET branch = ?, status = ? WHERE seq = ?');
  const metrics = db.prepare(
    `SELECT seq, payload FROM metrics WHERE seq > ? ORDER BY seq LIMIT ${CHUNK}`,
  );
  const setMetric = db.prepare('UPDATE metrics SET branch = ? WHERE seq = ?');
  for (
    let after = 0, rows: { seq: number; payload: string }[];
    ;
    after = (rows.at(-1) as { seq: number }).seq
  ) {
    rows = events.all(after) as { seq: number; payload: string }[];
    if (rows.length === 0) break;
    for (const row of rows) {
      const payload = JSON.parse(row.payload) as Record<string, unknown>;
      setEvent.run(branchOf(payload), statusOf(payload), row.seq);
    }
  }
  for (
    let after = 0, rows: { seq: number; payload: string }[];
    ;
    after = (rows.at(-1) as { seq: number }).seq
  ) {
    rows = metrics.all(after) as { seq: number; payload: string }[];
    if (rows.length === 0) break;
    for (const row of rows)
      setMetric.run(branchOf(JSON.parse(row.payload) as Record<string, unknown>), row.seq);
  }
}
