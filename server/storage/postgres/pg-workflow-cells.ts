import { seriesOf, workflowOf, workflowOfText } from '../../domain/record-facts.js';
import { cellBucketOf, planRange, type ReadPlan } from '../../domain/time-buckets.js';
import {
  type FoldEvent,
  foldWorkflowEvents,
  foldWorkflowMetrics,
  type WorkflowFoldMetric,
} from '../stats-fold.js';
import type {
  EventCountCell,
  SeriesCell,
  StatsRepository,
  WorkflowEventCell,
  WorkflowRecord,
  WorkflowSeriesCell,
} from '../storage.js';
import { addEventCells, addSeriesCells, binsOf, type CellTable } from './pg-cell-writes.js';
import { integerArray, type Sql } from './pg-database.js';

/** Events of `seqs` as the fold needs them, with their payload's workflow. */
export async function workflowEventsOf(sql: Sql, seqs: number[]) {
  const rows = await sql<(FoldEvent & { payload: string | null })[]>`
    SELECT project_id AS "projectId", event_type AS "eventType", branch, status,
           created_at AS "createdAt", payload
      FROM events WHERE seq = ANY(${integerArray(seqs)}::bigint[])`;
  return rows.flatMap(({ payload, ...event }) => {
    const workflow = workflowOfText(payload);
    return workflow === null ? [] : [{ ...event, workflow }];
  });
}

/** Adds events of a workflow to their hour cells (stats-fold.ts's foldWorkflowEvents). */
export async function addWorkflowEvents(
  sql: Sql,
  events: Parameters<typeof foldWorkflowEvents>[0],
): Promise<void> {
  await addEventCells(
    sql,
    WORKFLOW_EVENT_CELLS,
    foldWorkflowEvents(events).map((c) => ({
      key: { p: c.projectId, w: c.workflow, s: c.start, e: c.eventType, b: c.branch },
      counts: c.counts,
    })),
  );
}

/** Metrics of `seqs` with a workflow, as the fold needs them. */
export async function workflowMetricsOf(sql: Sql, seqs: number[]) {
  const rows = await sql<
    { seq: number; projectId: string; branch: string | null; t: number; payload: string }[]
  >`
    SELECT seq, project_id AS "projectId", branch, created_at AS t, payload
      FROM metrics WHERE seq = ANY(${integerArray(seqs)}::bigint[]) ORDER BY seq`;
  return rows.flatMap(({ payload, ...row }): WorkflowFoldMetric[] => {
    const parsed = JSON.parse(payload) as Record<string, unknown>;
    const workflow = workflowOf(parsed);
    return workflow === null ? [] : [{ ...row, workflow, leaves: seriesOf(parsed) }];
  });
}

/** Adds metrics of a workflow to their hour cells (merged with the stored ones). */
export async function addWorkflowMetrics(sql: Sql, metrics: WorkflowFoldMetric[]): Promise<void> {
  await addSeriesCells(
    sql,
    WORKFLOW_SERIES_CELLS,
    foldWorkflowMetrics(metrics).map((c) => ({
      key: { p: c.projectId, w: c.workflow, k: c.key, b: c.branch, s: c.start },
      sum: c.sum,
    })),
  );
}

/** The workflow cells' tables, by their keys (pg-cell-writes.ts). */
const WORKFLOW_EVENT_CELLS: CellTable<'p' | 'w' | 's' | 'e' | 'b'> = {
  name: 'workflow_event_cells',
  key: {
    p: ['project_id', 'text'],
    w: ['workflow', 'text'],
    s: ['start', 'bigint'],
    e: ['event_type', 'text'],
    b: ['branch', 'text'],
  },
};
const WORKFLOW_SERIES_CELLS: CellTable<'p' | 'w' | 'k' | 'b' | 's'> = {
  name: 'workflow_series_cells',
  key: {
    p: ['project_id', 'text'],
    w: ['workflow', 'text'],
    k: ['key', 'text'],
    b: ['branch', 'text'],
    s: ['start', 'bigint'],
  },
};

/** The workflow cells of the records of `seqs` (the fold's chunk, or the migration's backfill). */
export async function foldWorkflowsInto(sql: Sql, events: number[], metrics: number[]) {
  if (events.length > 0) await addWorkflowEvents(sql, await workflowEventsOf(sql, events));
  if (metrics.length > 0) await addWorkflowMetrics(sql, await workflowMetricsOf(sql, metrics));
}

/**
 * One workflow's events and series on PostgreSQL: its hour cells for the plan's spans, and, in
 * the same statement (one snapshot), the records of the raw spans and those still queued for
 * the fold (stats_queue) or for the migration's backfill (workflow_queue), whose payload is
 * checked for the workflow here (a text search first narrows them in SQL).
 */
export function pgWorkflowReads(
  sql: Sql,
): Pick<StatsRepository, 'workflowEventData' | 'workflowSeriesData'> {
  const spans = (plan: ReadPlan) => {
    const column = <T>(items: readonly T[], pick: (item: T) => number) =>
      integerArray(items.map(pick));
    return sql`spans AS (
        SELECT * FROM unnest(${column(plan.cells, (s) => s.from)}::bigint[],
                             ${column(plan.cells, (s) => s.to)}::bigint[],
                             ${column(plan.cells, (s) => s.bucket)}::int[]) AS s(f, t, b)),
      edges AS (
        SELECT * FROM unnest(${column(plan.raw, (s) => s.from)}::bigint[],
                             ${column(plan.raw, (s) => s.to)}::bigint[],
                             ${column(plan.raw, (s) => s.bucket)}::int[]) AS e(f, t, b))`;
  };
  /** A text search that narrows the records to those that may name the workflow. */
  const mentions = (column: ReturnType<typeof sql>, workflow: string | null) =>
    workflow === null
      ? sql``
      : sql`AND strpos(${column}, ${JSON.stringify(workflow).slice(1, -1)}) > 0`;
  // The workflows read: the one asked for, or every one of the project's (workflow null), each
  // found by one step down the primary key (a loose index scan).
  const names = (table: string, projectId: string, workflow: string | null) =>
    workflow === null
      ? sql`names AS (
          SELECT min(workflow) AS name FROM ${sql(table)} WHERE project_id = ${projectId}
          UNION ALL
          SELECT (SELECT min(workflow) FROM ${sql(table)}
                   WHERE project_id = ${projectId} AND workflow > n.name)
            FROM names n WHERE n.name IS NOT NULL)`
      : sql`names AS (SELECT ${workflow}::text AS name)`;
  /** The record's workflow when it is the one asked for (null: any), else null. */
  const kept = (workflow: string | null, found: string | null) =>
    workflow === null || found === workflow ? found : null;

  return {
    async workflowEventData(projectId, workflow, filter, plan) {
      const range = planRange(plan);
      if (!range) return { cells: [], events: [] };
      const cellFilters = sql`
        ${filter.branch === undefined ? sql`` : sql`AND c.branch = ${filter.branch}`}
        ${filter.eventType === undefined ? sql`` : sql`AND c.event_type = ${filter.eventType}`}`;
      const records = sql`e.project_id = ${projectId}
        ${filter.branch === undefined ? sql`` : sql`AND e.branch = ${filter.branch}`}
        ${filter.eventType === undefined ? sql`` : sql`AND e.event_type = ${filter.eventType}`}
        ${mentions(sql`e.payload`, workflow)}`;
      const queued = (queue: 'stats_queue' | 'workflow_queue') => sql`
        SELECT -1 AS b, NULL::text, NULL::int, NULL::int, NULL::int, NULL::int, e.created_at,
               e.status, e.payload
          FROM ${sql(queue)} q CROSS JOIN LATERAL (
          SELECT * FROM events e
           WHERE e.seq = ANY(q.events)
                 AND e.created_at >= ${range[0]} AND e.created_at < ${range[1]} AND ${records}
                 OFFSET 0) e`;
      const rows = await sql<
        (Omit<EventCountCell, 'bucket'> & {
          bucket: number;
          workflow: string | null;
          t: number | null;
          status: string | null;
          payload: string | null;
        })[]
      >`
        WITH RECURSIVE ${spans(plan)}, ${names('workflow_event_cells', projectId, workflow)}
        SELECT s.b AS bucket, c.workflow, sum(c.success)::int AS success,
               sum(c.failure)::int AS failure, sum(c.cancelled)::int AS cancelled,
               sum(c.other)::int AS other, NULL::bigint AS t, NULL AS status, NULL AS payload
          FROM spans s CROSS JOIN names n CROSS JOIN LATERAL (
          SELECT * FROM workflow_event_cells c
           WHERE c.project_id = ${projectId} AND c.workflow = n.name
                 AND c.start >= s.f AND c.start < s.t ${cellFilters} OFFSET 0) c
         WHERE n.name IS NOT NULL
         GROUP BY s.b, c.workflow
        UNION ALL
        SELECT x.b, NULL, NULL, NULL, NULL, NULL, e.created_at, e.status, e.payload
          FROM edges x CROSS JOIN LATERAL (
          SELECT * FROM events e
           WHERE e.created_at >= x.f AND e.created_at < x.t AND ${records} OFFSET 0) e
        UNION ALL ${queued('stats_queue')}
        UNION ALL ${queued('workflow_queue')}`;
      const cells: WorkflowEventCell[] = [];
      const events: { workflow: string; bucket: number; status: string | null }[] = [];
      for (const { bucket, t, status, payload, workflow: of, ...counts } of rows) {
        if (payload === null) {
          cells.push({ bucket, workflow: of as string, ...counts });
          continue;
        }
        const found = kept(workflow, workflowOfText(payload));
        if (found === null) continue;
        const at = bucket >= 0 ? bucket : cellBucketOf(plan, t as number);
        if (at !== undefined) events.push({ workflow: found, bucket: at, status });
      }
      return { cells, events };
    },

    async workflowSeriesData(projectId, workflow, key, branch, plan) {
      const range = planRange(plan);
      if (!range) return { cells: [], records: [] };
      const part = JSON.stringify(key.split('.').at(-1)).slice(1, -1);
      const records = sql`m.project_id = ${projectId}
        ${branch === undefined ? sql`` : sql`AND m.branch = ${branch}`}
        AND strpos(m.payload, ${part}) > 0 ${mentions(sql`m.payload`, workflow)}`;
      const queued = (queue: 'stats_queue' | 'workflow_queue') => sql`
        SELECT -1 AS b, NULL::text, NULL::bigint, NULL::float8, NULL::float8, NULL::float8,
               m.created_at, m.seq, NULL::float8, NULL, NULL, m.payload
          FROM ${sql(queue)} q CROSS JOIN LATERAL (
          SELECT * FROM metrics m
           WHERE m.seq = ANY(q.metrics)
                 AND m.created_at >= ${range[0]} AND m.created_at < ${range[1]} AND ${records}
                 OFFSET 0) m`;
      const rows = await sql<
        {
          bucket: number;
          workflow: string | null;
          count: number;
          min: number;
          max: number;
          sum: number;
          lastAt: number;
          seq: number;
          lastValue: number;
          keys: string | null;
          counts: string | null;
          payload: string | null;
        }[]
      >`
        WITH RECURSIVE ${spans(plan)}, ${names('workflow_series_cells', projectId, workflow)}
        SELECT s.b AS bucket, c.workflow, c.count, c.min, c.max, c.sum, c.last_at AS "lastAt",
               c.last_seq AS seq, c.last_value AS "lastValue", c.bin_keys::text AS keys,
               c.bin_counts::text AS counts, NULL AS payload
          FROM spans s CROSS JOIN names n CROSS JOIN LATERAL (
          SELECT * FROM workflow_series_cells c
           WHERE c.project_id = ${projectId} AND c.workflow = n.name AND c.key = ${key}
                 ${branch === undefined ? sql`` : sql`AND c.branch = ${branch}`}
                 AND c.start >= s.f AND c.start < s.t OFFSET 0) c
         WHERE n.name IS NOT NULL
        UNION ALL
        SELECT e.b, NULL, NULL, NULL, NULL, NULL, m.created_at, m.seq, NULL, NULL, NULL,
               m.payload
          FROM edges e CROSS JOIN LATERAL (
          SELECT * FROM metrics m
           WHERE m.created_at >= e.f AND m.created_at < e.t AND ${records} OFFSET 0) m
        UNION ALL ${queued('stats_queue')}
        UNION ALL ${queued('workflow_queue')}
         ORDER BY seq`;
      const cells: WorkflowSeriesCell[] = [];
      const found: WorkflowRecord[] = [];
      for (const row of rows) {
        if (row.payload === null) {
          cells.push({
            bucket: row.bucket,
            workflow: row.workflow as string,
            count: Number(row.count),
            min: row.min,
            max: row.max,
            sum: row.sum,
            lastAt: Number(row.lastAt),
            lastSeq: Number(row.seq),
            lastValue: row.lastValue,
            bins: binsOf(row.keys as string, row.counts as string),
          });
          continue;
        }
        const payload = JSON.parse(row.payload) as Record<string, unknown>;
        const of = kept(workflow, workflowOf(payload));
        if (of === null) continue;
        const bucket = row.bucket >= 0 ? row.bucket : cellBucketOf(plan, row.lastAt);
        if (bucket !== undefined) {
          found.push({ workflow: of, bucket, t: Number(row.lastAt), payload });
        }
      }
      return { cells, records: found };
    },
  };
}
