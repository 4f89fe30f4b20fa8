import type { Statement } from 'better-sqlite3';
import { branchOf, seriesOf, statusClass, statusOf } from '../../domain/record-facts.js';
import { addBins, type Bins, binOf, decodeBins, encodeBins } from '../../domain/sketch.js';
import { HOUR_MS, MINUTE_MS, type ReadPlan } from '../../domain/time-buckets.js';
import type { SeriesCell, SeriesKeyInfo, StatsRepository } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

const UNITS = [MINUTE_MS, HOUR_MS] as const;
/** Records folded into cells at a time: bounds memory when a backfill or a seed indexes millions. */
const CHUNK = 20_000;

interface SeriesAccumulator {
  count: number;
  min: number;
  max: number;
  sum: number;
  lastAt: number;
  lastValue: number;
  bins: Bins;
}

const emptyAccumulator = (): SeriesAccumulator => ({
  count: 0,
  min: Number.POSITIVE_INFINITY,
  max: Number.NEGATIVE_INFINITY,
  sum: 0,
  lastAt: Number.NEGATIVE_INFINITY,
  lastValue: 0,
  bins: new Map(),
});

function addValue(into: SeriesAccumulator, t: number, value: number): void {
  into.count += 1;
  into.min = Math.min(into.min, value);
  into.max = Math.max(into.max, value);
  into.sum += value;
  // Ties go to the later record: rows are indexed in the order they were stored.
  if (t >= into.lastAt) {
    into.lastAt = t;
    into.lastValue = value;
  }
  into.bins.set(binOf(value), (into.bins.get(binOf(value)) ?? 0) + 1);
}

/**
 * Keeps the statistics cells up to date with the records: `index` folds the events and metrics
 * stored after the given positions into per-minute and per-hour cells and the series keys. It
 * runs inside the transaction that stored them (just before its commit), reading them back, so a
 * record rolled back is never counted.
 */
export function sqliteStatsIndex(db: Db) {
  const newEvents = db.prepare(
    `SELECT seq, project_id AS projectId, event_type AS eventType, branch, status,
            created_at AS createdAt FROM events WHERE seq > ? ORDER BY seq LIMIT ${CHUNK}`,
  );
  const newMetrics = db.prepare(
    `SELECT seq, id, project_id AS projectId, branch, created_at AS createdAt
       FROM metrics WHERE seq > ? ORDER BY seq LIMIT ${CHUNK}`,
  );
  const payloadOf = db.prepare('SELECT payload FROM metrics WHERE seq = ?').pluck();
  // The leaves of the metrics appended since the last fold, by id: `append` parsed them already.
  // The fold still lists the records from the database, so one rolled back is never counted.
  let appended = new Map<string, [string, number][]>();
  const addEvents = db.prepare(
    `INSERT INTO event_cells (project_id, unit, start, event_type, branch, success, failure, cancelled, other)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET success = success + excluded.success,
       failure = failure + excluded.failure, cancelled = cancelled + excluded.cancelled,
       other = other + excluded.other`,
  );
  const cell = db.prepare(
    `SELECT count, min, max, sum, last_at AS lastAt, last_value AS lastValue, bins
       FROM series_cells WHERE project_id = ? AND key = ? AND unit = ? AND start = ? AND branch = ?`,
  );
  const saveCell = db.prepare(
    `INSERT OR REPLACE INTO series_cells
       (project_id, key, unit, start, branch, count, min, max, sum, last_at, last_value, bins)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const addSeries = db.prepare(
    `INSERT INTO series (project_id, key, count, last_at, last_value) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET count = count + excluded.count,
       last_value = CASE WHEN excluded.last_at >= last_at THEN excluded.last_value ELSE last_value END,
       last_at = MAX(last_at, excluded.last_at)`,
  );
  const lastEvent = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM events').pluck();
  const lastMetric = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM metrics').pluck();

  /** Folds one chunk of events after `after` into their cells; returns the last one folded. */
  function indexEvents(after: number): number {
    const counts = new Map<string, [string, number, number, string, string, number[]]>();
    let last = after;
    for (const row of newEvents.all(after) as Iterable<{
      seq: number;
      projectId: string;
      eventType: string;
      branch: string | null;
      status: string | null;
      createdAt: number;
    }>) {
      last = row.seq;
      const column = ['success', 'failure', 'cancelled', 'other'].indexOf(statusClass(row.status));
      for (const unit of UNITS) {
        const start = Math.floor(row.createdAt / unit) * unit;
        const id = `${row.projectId}\n${unit}\n${start}\n${row.eventType}\n${row.branch ?? ''}`;
        let entry = counts.get(id);
        if (!entry) {
          entry = [row.projectId, unit, start, row.eventType, row.branch ?? '', [0, 0, 0, 0]];
          counts.set(id, entry);
        }
        (entry[5][column] as number) += 1;
      }
    }
    for (const [projectId, unit, start, eventType, branch, [a, b, c, d]] of counts.values()) {
      addEvents.run(projectId, unit, start, eventType, branch, a, b, c, d);
    }
    return last;
  }

  /** Folds one chunk of metrics after `after` into their cells and keys; returns the last one. */
  function indexMetrics(after: number): number {
    const cells = new Map<
      string,
      { at: [string, string, number, number, string]; sum: SeriesAccumulator }
    >();
    const keys = new Map<string, { projectId: string; key: string; sum: SeriesAccumulator }>();
    let last = after;
    for (const row of newMetrics.all(after) as Iterable<{
      seq: number;
      id: string;
      projectId: string;
      branch: string | null;
      createdAt: number;
    }>) {
      last = row.seq;
      const t = row.createdAt;
      const leaves =
        appended.get(row.id) ??
        seriesOf(JSON.parse(payloadOf.get(row.seq) as string) as Record<string, unknown>);
      for (const [key, value] of leaves) {
        const seriesId = `${row.projectId}\n${key}`;
        let series = keys.get(seriesId);
        if (!series) {
          series = { projectId: row.projectId, key, sum: emptyAccumulator() };
          keys.set(seriesId, series);
        }
        addValue(series.sum, t, value);
        for (const unit of UNITS) {
          const start = Math.floor(t / unit) * unit;
          const id = `${seriesId}\n${unit}\n${start}\n${row.branch ?? ''}`;
          let entry = cells.get(id);
          if (!entry) {
            entry = {
              at: [row.projectId, key, unit, start, row.branch ?? ''],
              sum: emptyAccumulator(),
            };
            cells.set(id, entry);
          }
          addValue(entry.sum, t, value);
        }
      }
    }
    for (const { at, sum } of cells.values()) {
      const stored = cell.get(...at) as
        | {
            count: number;
            min: number;
            max: number;
            sum: number;
            lastAt: number;
            lastValue: number;
            bins: string;
          }
        | undefined;
      if (stored) {
        sum.count += stored.count;
        sum.min = Math.min(sum.min, stored.min);
        sum.max = Math.max(sum.max, stored.max);
        sum.sum += stored.sum;
        if (stored.lastAt > sum.lastAt) {
          sum.lastAt = stored.lastAt;
          sum.lastValue = stored.lastValue;
        }
        addBins(sum.bins, decodeBins(stored.bins));
      }
      saveCell.run(
        ...at,
        sum.count,
        sum.min,
        sum.max,
        sum.sum,
        sum.lastAt,
        sum.lastValue,
        encodeBins(sum.bins),
      );
    }
    for (const { projectId, key, sum } of keys.values()) {
      addSeries.run(projectId, key, sum.count, sum.lastAt, sum.lastValue);
    }
    return last;
  }

  const exhaust = (index: (after: number) => number, after: number) => {
    let last = after;
    for (let next = index(last); next !== last; next = index(last)) last = next;
    return last;
  };

  // Everything stored up to now is indexed (it was, in the transaction that stored it).
  let indexed = { events: lastEvent.get() as number, metrics: lastMetric.get() as number };
  let pending = indexed;

  return {
    /** Keeps a metric's leaves for the fold (called by `append`, inside the transaction). */
    appended(id: string, leaves: [string, number][]): void {
      appended.set(id, leaves);
    },
    /** Indexes what was stored since the last commit; must run inside that transaction. */
    beforeCommit(): void {
      pending = {
        events: exhaust(indexEvents, indexed.events),
        metrics: exhaust(indexMetrics, indexed.metrics),
      };
      // Whatever was not folded now was rolled back.
      appended = new Map();
    },
    /** The transaction committed: its records are indexed for good. */
    committed(): void {
      indexed = pending;
    },
    /** Indexes every record after the given positions (the migration's backfill, the bench's seed). */
    indexAfter(events: number, metrics: number): void {
      indexed = pending = {
        events: exhaust(indexEvents, events),
        metrics: exhaust(indexMetrics, metrics),
      };
    },
  };
}

/** Reads the cells and raw records a read plan names. */
export function sqliteStats(db: Db): Sync<StatsRepository> {
  const keysOf = db.prepare(
    `SELECT key, count, last_value AS lastValue, last_at AS lastAt FROM series
      WHERE project_id = ? ORDER BY key`,
  );
  const seriesCells = (withBranch: boolean) =>
    db.prepare(
      `SELECT count, min, max, sum, last_at AS lastAt, last_value AS lastValue, bins FROM series_cells
        WHERE project_id = ? AND key = ? AND unit = ? AND start >= ? AND start < ?
        ${withBranch ? 'AND branch = ?' : ''}`,
    );
  const seriesCellsBy = { any: seriesCells(false), branch: seriesCells(true) };
  const rawMetrics = (withBranch: boolean) =>
    db.prepare(
      `SELECT created_at AS t, payload FROM metrics
        WHERE project_id = ? AND created_at >= ? AND created_at < ? ${withBranch ? 'AND branch = ?' : ''}`,
    );
  const rawMetricsBy = { any: rawMetrics(false), branch: rawMetrics(true) };
  const eventStatements = new Map<string, Statement<unknown[]>>();
  const eventStatement = (kind: 'cells' | 'raw', branch: boolean, eventType: boolean) => {
    const id = `${kind}${branch}${eventType}`;
    let statement = eventStatements.get(id);
    if (!statement) {
      const filters = `${branch ? 'AND branch = ?' : ''} ${eventType ? 'AND event_type = ?' : ''}`;
      statement = db.prepare(
        kind === 'cells'
          ? `SELECT success, failure, cancelled, other FROM event_cells
              WHERE project_id = ? AND unit = ? AND start >= ? AND start < ? ${filters}`
          : `SELECT status FROM events
              WHERE project_id = ? AND created_at >= ? AND created_at < ?
              ${branch ? 'AND branch = ?' : ''} ${eventType ? 'AND event_type = ?' : ''}`,
      );
      eventStatements.set(id, statement);
    }
    return statement;
  };

  return {
    seriesKeys: (projectId) => keysOf.all(projectId) as SeriesKeyInfo[],

    seriesData(projectId, key, branch, plan: ReadPlan) {
      const statement = branch === undefined ? seriesCellsBy.any : seriesCellsBy.branch;
      const extra = branch === undefined ? [] : [branch];
      const cells: SeriesCell[] = [];
      for (const [unit, spans] of [
        [HOUR_MS, plan.hours],
        [MINUTE_MS, plan.minutes],
      ] as const) {
        for (const span of spans) {
          for (const row of statement.all(
            projectId,
            key,
            unit,
            span.from,
            span.to,
            ...extra,
          ) as (Omit<SeriesCell, 'bucket' | 'bins'> & { bins: string })[]) {
            cells.push({ ...row, bucket: span.bucket, bins: decodeBins(row.bins) });
          }
        }
      }
      const raw = branch === undefined ? rawMetricsBy.any : rawMetricsBy.branch;
      const records = plan.raw.flatMap((span) =>
        (raw.all(projectId, span.from, span.to, ...extra) as { t: number; payload: string }[]).map(
          (row) => ({
            bucket: span.bucket,
            t: row.t,
            payload: JSON.parse(row.payload) as Record<string, unknown>,
          }),
        ),
      );
      return { cells, records };
    },

    eventData(projectId, filter, plan) {
      const extra = [filter.branch, filter.eventType].filter((value) => value !== undefined);
      const cellsOf = eventStatement(
        'cells',
        filter.branch !== undefined,
        filter.eventType !== undefined,
      );
      const cells = [
        ...plan.hours.map((span) => [HOUR_MS, span] as const),
        ...plan.minutes.map((span) => [MINUTE_MS, span] as const),
      ].flatMap(([unit, span]) =>
        (
          cellsOf.all(projectId, unit, span.from, span.to, ...extra) as {
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
        (rawOf.all(projectId, span.from, span.to, ...extra) as { status: string | null }[]).map(
          (row) => ({
            bucket: span.bucket,
            status: row.status,
          }),
        ),
      );
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
