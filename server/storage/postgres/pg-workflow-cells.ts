import { seriesOf, workflowOf, workflowOfText } from '../../domain/record-facts.js';
import { addSeriesSum, emptySeriesSum, type SeriesSum } from '../../domain/series-sum.js';
import { cellBucketOf, type ReadPlan } from '../../domain/time-buckets.js';
import {
  type FoldEvent,
  foldWorkflowEvents,
  foldWorkflowMetrics,
  type WorkflowFoldMetric,
} from '../stats-fold.js';
import type {
  EventCountCell,
  StatsRepository,
  WorkflowEventCell,
  WorkflowRecord,
  WorkflowSeriesCell,
} from '../storage.js';
import { integerArray, type Sql } from './pg-database.js';
// A cycle of functions only, called after both modules loaded (the fold calls foldWorkflowsInto).
import { binsOf } from './pg-stats-fold.js';

/** A float for json_to_recordset: as text, so that an infinite sum stays one (JSON has none). */
const float = (value: number) => String(value);

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
  const cells = foldWorkflowEvents(events);
  if (cells.length === 0) return;
  await sql`
    INSERT INTO workflow_event_cells
           (project_id, workflow, start, event_type, branch, success, failure, cancelled, other)
    SELECT p, w, s, e, b, c[1], c[2], c[3], c[4]
      FROM json_to_recordset(${JSON.stringify(
        cells.map((c) => ({
          p: c.projectId,
          w: c.workflow,
          s: c.start,
          e: c.eventType,
          b: c.branch,
          c: c.counts,
        })),
      )}::text::json) AS r(p text, w text, s bigint, e text, b text, c int[])
     ORDER BY p, w, s, e, b
    ON CONFLICT (project_id, workflow, start, event_type, branch) DO UPDATE SET
      success = workflow_event_cells.success + excluded.success,
      failure = workflow_event_cells.failure + excluded.failure,
      cancelled = workflow_event_cells.cancelled + excluded.cancelled,
      other = workflow_event_cells.other + excluded.other`;
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

type StoredSum = Omit<SeriesSum, 'bins' | 'lastSeq'> & {
  lastSeq: number;
  keys: string;
  counts: string;
};

/** Adds metrics of a workflow to their hour cells (merged with the stored ones, as saveCells). */
export async function addWorkflowMetrics(sql: Sql, metrics: WorkflowFoldMetric[]): Promise<void> {
  const all = foldWorkflowMetrics(metrics);
  // A statement per 5,000 cells, as saveCells (one JSON text of them all can pass V8's longest).
  for (let i = 0; i < all.length; i += 5_000) await saveWorkflowCells(sql, all.slice(i, i + 5_000));
}

async function saveWorkflowCells(
  sql: Sql,
  cells: ReturnType<typeof foldWorkflowMetrics>,
): Promise<void> {
  if (cells.length === 0) return;
  const at = cells.map((c) => ({
    p: c.projectId,
    w: c.workflow,
    k: c.key,
    s: c.start,
    b: c.branch,
  }));
  // Lengths keep the id unambiguous whatever the texts hold.
  const idOf = (c: { p: string; w: string; k: string; s: number; b: string }) =>
    `${c.p}\n${c.s}\n${c.w.length}\n${c.w}${c.k.length}\n${c.k}${c.b}`;
  const stored = await sql<
    (StoredSum & { p: string; w: string; k: string; s: number; b: string })[]
  >`
    SELECT c.project_id AS p, c.workflow AS w, c.key AS k, c.start AS s, c.branch AS b,
           c.count, c.min, c.max, c.sum, c.last_at AS "lastAt", c.last_seq AS "lastSeq",
           c.last_value AS "lastValue", c.bin_keys::text AS keys, c.bin_counts::text AS counts
      FROM json_to_recordset(${JSON.stringify(at)}::text::json)
           AS r(p text, w text, k text, s bigint, b text)
      JOIN workflow_series_cells c ON c.project_id = r.p AND c.workflow = r.w AND c.key = r.k
           AND c.branch = r.b AND c.start = r.s`;
  const storedById = new Map(stored.map((row) => [idOf(row), row]));
  const merged = cells.map((cell, n) => {
    const where = at[n] as (typeof at)[number];
    const total = emptySeriesSum();
    const known = storedById.get(idOf(where));
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
    INSERT INTO workflow_series_cells (project_id, workflow, key, branch, start, count, min, max,
           sum, last_at, last_seq, last_value, bin_keys, bin_counts)
    SELECT p, w, k, b, s, count, min, max, sum, at, seq, last, keys, counts
      FROM json_to_recordset(${JSON.stringify(merged)}::text::json)
           AS r(p text, w text, k text, b text, s bigint, count bigint, min float8, max float8,
                sum float8, at bigint, seq bigint, last float8, keys int[], counts bigint[])
     ORDER BY p, w, k, b, s
    ON CONFLICT (project_id, workflow, key, branch, start) DO UPDATE SET
      count = excluded.count, min = excluded.min, max = excluded.max, sum = excluded.sum,
      last_at = excluded.last_at, last_seq = excluded.last_seq,
      last_value = excluded.last_value, bin_keys = excluded.bin_keys,
      bin_counts = excluded.bin_counts`;
}

/** The workflow cells of the records of `seqs` (the fold's chunk, or the migration's backfill). */
export async function foldWorkflowsInto(sql: Sql, events: number[], metrics: number[]) {
  if (events.length > 0) await addWorkflowEvents(sql, await workflowEventsOf(sql, events));
  if (metrics.length > 0) await addWorkflowMetrics(sql, await workflowMetricsOf(sql, metrics));
}

/** [from, to) of the whole plan, or undefined when it has no bucket. */
function rangeOf(plan: ReadPlan): [number, number] | undefined {
  const first = plan.buckets[0];
  const last = plan.buckets.at(-1);
  return first && last ? [first.start, last.end] : undefined;
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
      const range = rangeOf(plan);
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
      const range = rangeOf(plan);
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
