import type { Statement } from 'better-sqlite3';
import { seriesOf, workflowOf, workflowOfText } from '../../domain/record-facts.js';
import { addSeriesSum, emptySeriesSum, type SeriesSum } from '../../domain/series-sum.js';
import { decodeBins, encodeBins } from '../../domain/sketch.js';
import { cellBucketOf, type ReadPlan } from '../../domain/time-buckets.js';
import {
  foldWorkflowEvents,
  foldWorkflowMetrics,
  type WorkflowFoldEvent,
  type WorkflowFoldMetric,
} from '../stats-fold.js';
import type {
  StatsRepository,
  WorkflowEventCell,
  WorkflowRecord,
  WorkflowSeriesCell,
} from '../storage.js';
import type { Db } from './sqlite-database.js';
import { rawSpanParameters, type SqliteStatsIndex } from './sqlite-stats.js';
import type { SqliteTimeMarks } from './sqlite-time-marks.js';
import type { Sync } from './sync.js';

/** Records read at a time by the migration's pass over the records. */
const CHUNK = 20_000;

/** Adds folded workflow events and metrics to their cells (the fold and the migration). */
export function sqliteWorkflowCellWriter(db: Db) {
  const addEvents = db.prepare(
    `INSERT INTO workflow_event_cells
       (project_id, workflow, start, event_type, branch, success, failure, cancelled, other)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET success = success + excluded.success,
       failure = failure + excluded.failure, cancelled = cancelled + excluded.cancelled,
       other = other + excluded.other`,
  );
  const cellOf = db.prepare(
    `SELECT count, min, max, sum, last_at AS lastAt, last_value AS lastValue, bins
       FROM workflow_series_cells
      WHERE project_id = ? AND workflow = ? AND key = ? AND start = ? AND branch = ?`,
  );
  const saveCell = db.prepare(
    `INSERT OR REPLACE INTO workflow_series_cells
       (project_id, workflow, key, start, branch, count, min, max, sum, last_at, last_value, bins)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return {
    events(events: WorkflowFoldEvent[]): void {
      for (const c of foldWorkflowEvents(events)) {
        addEvents.run(c.projectId, c.workflow, c.start, c.eventType, c.branch, ...c.counts);
      }
    },
    metrics(metrics: WorkflowFoldMetric[]): void {
      for (const c of foldWorkflowMetrics(metrics)) {
        const at = [c.projectId, c.workflow, c.key, c.start, c.branch];
        const stored = cellOf.get(...at) as
          | (Omit<SeriesSum, 'bins'> & { bins: Uint8Array })
          | undefined;
        // The stored cell holds earlier records: added first, so a tie goes to the new ones.
        const total = emptySeriesSum();
        if (stored) addSeriesSum(total, { ...stored, bins: decodeBins(stored.bins) });
        addSeriesSum(total, c.sum);
        saveCell.run(
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
    },
  };
}

/**
 * The migration's pass: the workflow cells of every record folded so far (up to the statistics'
 * progress; later ones are folded with the rest by the index), a chunk at a time.
 */
export function backfillWorkflowCells(db: Db): void {
  const write = sqliteWorkflowCellWriter(db);
  const progress = db.prepare('SELECT events, metrics FROM stats_progress').get() as {
    events: number;
    metrics: number;
  };
  const events = db.prepare(
    `SELECT seq, project_id AS projectId, event_type AS eventType, branch, status,
            created_at AS createdAt, payload
       FROM events WHERE seq > ? AND seq <= ? AND payload IS NOT NULL ORDER BY seq LIMIT ${CHUNK}`,
  );
  const metrics = db.prepare(
    `SELECT seq, project_id AS projectId, branch, created_at AS t, payload
       FROM metrics WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ${CHUNK}`,
  );
  type EventRow = Omit<WorkflowFoldEvent, 'workflow'> & { seq: number; payload: string };
  for (let after = 0; ; ) {
    const rows = events.all(after, progress.events) as EventRow[];
    if (rows.length === 0) break;
    write.events(
      rows.flatMap(({ payload, seq: _, ...row }) => {
        const workflow = workflowOfText(payload);
        return workflow === null ? [] : [{ ...row, workflow }];
      }),
    );
    after = (rows.at(-1) as EventRow).seq;
  }
  type MetricRow = { seq: number; projectId: string; branch: string | null; t: number };
  for (let after = 0; ; ) {
    const rows = metrics.all(after, progress.metrics) as (MetricRow & { payload: string })[];
    if (rows.length === 0) break;
    write.metrics(
      rows.flatMap(({ payload, ...row }) => {
        const parsed = JSON.parse(payload) as Record<string, unknown>;
        const workflow = workflowOf(parsed);
        return workflow === null ? [] : [{ ...row, workflow, leaves: seriesOf(parsed) }];
      }),
    );
    after = (rows.at(-1) as MetricRow).seq;
  }
}

type WorkflowReads = Pick<Sync<StatsRepository>, 'workflowEventData' | 'workflowSeriesData'>;

/**
 * One workflow's events and series: the hour cells the plan names (summed over branches when no
 * branch is asked for), and the plan's raw spans and the records not folded yet, read from the
 * records and kept when their payload names the workflow.
 */
export function sqliteWorkflowReads(
  db: Db,
  marks: SqliteTimeMarks,
  index: SqliteStatsIndex,
): WorkflowReads {
  const branchAnd = (branch: boolean, eventType = false) =>
    `${branch ? 'AND branch = ?' : ''} ${eventType ? 'AND event_type = ?' : ''}`;
  const cached = new Map<string, Statement<unknown[]>>();
  const statement = (id: string, text: () => string) => {
    let found = cached.get(id);
    if (!found) {
      found = db.prepare(text());
      cached.set(id, found);
    }
    return found;
  };
  // A raw span as sqlite-stats.ts reads one: the seq range the time marks give, plus the
  // imported (back-dated) rows of the span outside it.
  const rawSpan = (table: 'events' | 'metrics', columns: string, filters: string) =>
    `SELECT ${columns} FROM ${table}
      WHERE project_id = ? AND seq >= ? AND seq < ? AND created_at >= ? AND created_at < ? ${filters}
     UNION ALL
     SELECT ${columns} FROM ${table}
      WHERE project_id = ? AND imported = 1 AND created_at >= ? AND created_at < ?
        AND NOT (seq >= ? AND seq < ?) ${filters}`;
  const rawEvents = (branch: boolean, eventType: boolean) =>
    statement(`e-raw${branch}${eventType}`, () =>
      rawSpan('events', 'status, payload', branchAnd(branch, eventType)),
    );
  // Every workflow (workflow null): the project's workflow names, each found by one step down
  // the primary key (a loose index scan), then each one's cells as for one workflow.
  const names = (table: string) =>
    `WITH RECURSIVE names(name) AS (
       SELECT min(workflow) FROM ${table} WHERE project_id = ?
       UNION ALL
       SELECT (SELECT min(workflow) FROM ${table} WHERE project_id = ? AND workflow > name)
         FROM names WHERE name IS NOT NULL)`;
  const which = (table: string, all: boolean) =>
    all
      ? { head: names(table), from: `names JOIN ${table} c ON c.workflow = names.name`, where: '' }
      : { head: '', from: `${table} c`, where: 'AND c.workflow = ?' };
  const workflowParameters = (projectId: string, workflow: string | null) =>
    workflow === null ? [projectId, projectId, projectId] : [projectId, workflow];
  const eventCells = (branch: boolean, eventType: boolean, all: boolean) =>
    statement(`e-cells${branch}${eventType}${all}`, () => {
      const at = which('workflow_event_cells', all);
      // Added up per workflow here, as sqlite-stats.ts adds up a span's event cells.
      return `${at.head}
        SELECT c.workflow, total(success) AS success, total(failure) AS failure,
               total(cancelled) AS cancelled, total(other) AS other FROM ${at.from}
          WHERE c.project_id = ? ${at.where} AND start >= ? AND start < ?
          ${branchAnd(branch, eventType)} GROUP BY c.workflow`;
    });
  const eventTail = statement(
    'e-tail',
    () =>
      `SELECT created_at AS t, branch, event_type AS eventType, status, payload FROM events
        WHERE seq > ? AND project_id = ? ORDER BY seq`,
  );
  const seriesCells = (branch: boolean, all: boolean) =>
    statement(`s-cells${branch}${all}`, () => {
      const at = which('workflow_series_cells', all);
      return `${at.head}
        SELECT c.workflow, count, min, max, sum, last_at AS lastAt, last_value AS lastValue, bins
           FROM ${at.from}
          WHERE c.project_id = ? ${at.where} AND key = ? AND start >= ? AND start < ?
          ${branchAnd(branch)} ORDER BY start, last_at`;
    });
  const rawMetrics = (branch: boolean) =>
    statement(`s-raw${branch}`, () =>
      rawSpan('metrics', 'created_at AS t, payload', branchAnd(branch)),
    );
  const metricTail = statement(
    's-tail',
    () =>
      `SELECT created_at AS t, branch, payload FROM metrics
        WHERE seq > ? AND project_id = ? ORDER BY seq`,
  );

  /** The record's workflow when it is the one asked for (null: any), else null. */
  const kept = (workflow: string | null, payload: string | null) => {
    const found = workflowOfText(payload);
    return workflow === null || found === workflow ? found : null;
  };

  return {
    workflowEventData(projectId, workflow, filter, plan) {
      const extra = [filter.branch, filter.eventType].filter((value) => value !== undefined);
      const has = [filter.branch !== undefined, filter.eventType !== undefined] as const;
      const cells: WorkflowEventCell[] = [];
      for (const span of plan.cells) {
        const rows = eventCells(has[0], has[1], workflow === null).all(
          ...workflowParameters(projectId, workflow),
          span.from,
          span.to,
          ...extra,
        ) as Omit<WorkflowEventCell, 'bucket'>[];
        for (const row of rows) cells.push({ ...row, bucket: span.bucket });
      }
      const events: { workflow: string; bucket: number; status: string | null }[] = [];
      for (const span of plan.raw) {
        const rows = rawEvents(has[0], has[1]).all(
          ...rawSpanParameters(marks, 'events', projectId, span, extra),
        ) as {
          status: string | null;
          payload: string | null;
        }[];
        for (const row of rows) {
          const found = kept(workflow, row.payload);
          if (found !== null)
            events.push({ workflow: found, bucket: span.bucket, status: row.status });
        }
      }
      const tail = eventTail.all(index.watermark().events, projectId) as {
        t: number;
        branch: string | null;
        eventType: string;
        status: string | null;
        payload: string | null;
      }[];
      for (const event of tail) {
        if (filter.branch !== undefined && event.branch !== filter.branch) continue;
        if (filter.eventType !== undefined && event.eventType !== filter.eventType) continue;
        const found = kept(workflow, event.payload);
        if (found === null) continue;
        const bucket = cellBucketOf(plan, event.t);
        if (bucket !== undefined) events.push({ workflow: found, bucket, status: event.status });
      }
      return { cells, events };
    },

    workflowSeriesData(projectId, workflow, key, branch, plan: ReadPlan) {
      const extra = branch === undefined ? [] : [branch];
      const cells: WorkflowSeriesCell[] = [];
      for (const span of plan.cells) {
        const rows = seriesCells(branch !== undefined, workflow === null).all(
          ...workflowParameters(projectId, workflow),
          key,
          span.from,
          span.to,
          ...extra,
        ) as (Omit<WorkflowSeriesCell, 'bucket' | 'bins'> & { bins: Uint8Array })[];
        for (const row of rows) {
          cells.push({ ...row, bucket: span.bucket, bins: decodeBins(row.bins) });
        }
      }
      const records: WorkflowRecord[] = [];
      const keep = (bucket: number | undefined, t: number, text: string) => {
        const found = bucket === undefined ? null : kept(workflow, text);
        if (bucket === undefined || found === null) return;
        records.push({
          workflow: found,
          bucket,
          t,
          payload: JSON.parse(text) as Record<string, unknown>,
        });
      };
      for (const span of plan.raw) {
        const rows = rawMetrics(branch !== undefined).all(
          ...rawSpanParameters(marks, 'metrics', projectId, span, extra),
        ) as { t: number; payload: string }[];
        for (const row of rows) keep(span.bucket, row.t, row.payload);
      }
      const tail = metricTail.all(index.watermark().metrics, projectId) as {
        t: number;
        branch: string | null;
        payload: string;
      }[];
      for (const row of tail) {
        if (branch !== undefined && row.branch !== branch) continue;
        keep(cellBucketOf(plan, row.t), row.t, row.payload);
      }
      return { cells, records };
    },
  };
}
