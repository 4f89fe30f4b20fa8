import { encodeRecordCursor, type RecordPosition } from '../../../contract/cursor.js';
import { Limits } from '../../../contract/limits.js';
import type { EventPage, StoredEvent } from '../../../contract/readback.js';
import { type SeriesPart, seriesTotal, valuePart } from '../../domain/bucket-aggregates.js';
import { Invalid } from '../../domain/domain-errors.js';
import { type StatusClass, seriesOf, statusClass, workflowOf } from '../../domain/record-facts.js';
import { planReads, readPlan, WORKFLOW_UNITS } from '../../domain/time-buckets.js';
import type { ViewRange } from '../../domain/view-ranges.js';
import type { Storage } from '../../storage/storage.js';

/**
 * Events read per page of the filtered timeline, at most: no cell keeps single events, so the
 * timeline of one workflow reads raw events, bounded (docs/pages.md).
 */
export const MAX_WORKFLOW_RECORDS = 2_000;
/** Rows of the table, at most (the most runs first). */
export const MAX_WORKFLOWS = 30;
const PAGE = 500;
const STATUS_CLASSES: readonly StatusClass[] = ['success', 'failure', 'cancelled', 'other'];

/** One row of the table by workflow (GitHub) or CI job (other CIs). */
export interface WorkflowRow {
  workflow: string;
  runs: number;
  success: number;
  failure: number;
  /** success ÷ (success + failure); null when both are 0. */
  successRate: number | null;
  /**
   * The median of the build-duration key's values reported by this workflow (null: none), by
   * nearest rank within the sketch's 2 %, as the headline's.
   */
  durationP50: number | null;
}

export interface WorkflowTable {
  rows: WorkflowRow[];
}

/**
 * The range's events and build durations by workflow or CI job, of `branch` and `eventType` when
 * given, read as one bucket from the workflow cells (whole hours) and the raw records of the
 * range's edges and not folded yet, as one workflow's figures are: exact over the whole range at
 * any size. Records without a workflow or job are left out.
 */
export async function workflowTable(
  storage: Pick<Storage, 'stats'>,
  projectId: string,
  range: Pick<ViewRange, 'from' | 'to'>,
  filter: { branch: string | undefined; eventType: string | undefined },
  durationKey: string | null,
): Promise<WorkflowTable> {
  const plan = readPlan(range.from, range.to, 1, WORKFLOW_UNITS);
  if (planReads(plan) > Limits.planReadsMax) throw new Invalid('read-budget');
  const [events, durations] = await Promise.all([
    storage.stats.workflowEventData(projectId, null, filter, plan),
    durationKey === null
      ? undefined
      : storage.stats.workflowSeriesData(projectId, null, durationKey, filter.branch, plan),
  ]);
  const counts = new Map<string, Record<StatusClass, number>>();
  const countsOf = (workflow: string) => {
    let found = counts.get(workflow);
    if (!found) {
      found = { success: 0, failure: 0, cancelled: 0, other: 0 };
      counts.set(workflow, found);
    }
    return found;
  };
  for (const cell of events.cells) {
    const row = countsOf(cell.workflow);
    for (const status of STATUS_CLASSES) row[status] += cell[status];
  }
  for (const event of events.events) countsOf(event.workflow)[statusClass(event.status)] += 1;
  const parts = new Map<string, SeriesPart[]>();
  const partsOf = (workflow: string) => {
    let found = parts.get(workflow);
    if (!found) {
      found = [];
      parts.set(workflow, found);
    }
    return found;
  };
  for (const cell of durations?.cells ?? []) partsOf(cell.workflow).push(cell);
  for (const record of durations?.records ?? []) {
    for (const [key, value] of seriesOf(record.payload)) {
      if (key === durationKey) partsOf(record.workflow).push(valuePart(0, record.t, value));
    }
  }
  // A workflow with durations but no event in the range is a row too (0 runs), as before.
  for (const workflow of parts.keys()) countsOf(workflow);

  const table = [...counts].map(([workflow, c]): WorkflowRow => {
    const decided = c.success + c.failure;
    return {
      workflow,
      runs: c.success + c.failure + c.cancelled + c.other,
      success: c.success,
      failure: c.failure,
      successRate: decided === 0 ? null : c.success / decided,
      durationP50: seriesTotal(parts.get(workflow) ?? [])?.p50 ?? null,
    };
  });
  table.sort((a, b) => b.runs - a.runs || (a.workflow < b.workflow ? -1 : 1));
  return { rows: table.slice(0, MAX_WORKFLOWS) };
}

/**
 * A page of the timeline filtered to one workflow or CI job (`?workflow=`, the table's row): the
 * range's events newest first (of `branch` and `eventType` when given) whose workflow is
 * `workflow`, at most `limit`. No cell keeps the workflow, so the raw events are read, bounded as
 * the table's read: at most MAX_WORKFLOW_RECORDS events per page asked; past that the page holds
 * what was found so far and its `nextCursor` goes on from where the read stopped (a page may
 * then hold fewer than `limit` events, never a scan of the whole range).
 */
export async function workflowTimeline(
  storage: Pick<Storage, 'records'>,
  projectId: string,
  range: Pick<ViewRange, 'from' | 'to'>,
  filter: { branch: string | undefined; eventType: string | undefined; workflow: string },
  limit: number,
  cursor: RecordPosition | undefined,
): Promise<EventPage> {
  const where = {
    from: range.from,
    to: range.to,
    branch: filter.branch,
    eventType: filter.eventType,
  };
  const found: StoredEvent[] = [];
  let before = cursor;
  let seen = 0;
  for (;;) {
    const page = await storage.records.events(projectId, where, PAGE, before);
    const matching = page.items.flatMap((event, index) =>
      workflowOf(event.payload) === filter.workflow ? [{ event, index }] : [],
    );
    const wanted = limit - found.length;
    if (matching.length > wanted || (matching.length === wanted && page.nextBefore !== null)) {
      // The page's last event shown is found[limit − 1]: the same read cut after it gives its
      // position as the cursor of the next page.
      const last = matching[wanted - 1] as { index: number };
      const cut = await storage.records.events(projectId, where, last.index + 1, before);
      found.push(...matching.slice(0, wanted).map((m) => m.event));
      return { events: found, nextCursor: cursorOf(cut.nextBefore) };
    }
    found.push(...matching.map((m) => m.event));
    seen += page.items.length;
    if (page.nextBefore === null) return { events: found, nextCursor: null };
    if (seen >= MAX_WORKFLOW_RECORDS)
      return { events: found, nextCursor: cursorOf(page.nextBefore) };
    before = page.nextBefore;
  }
}

const cursorOf = (before: RecordPosition | null) =>
  before === null ? null : encodeRecordCursor(before);
