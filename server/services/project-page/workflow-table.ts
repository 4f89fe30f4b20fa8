import { encodeRecordCursor, type RecordPosition } from '../../../contract/cursor.js';
import type { EventPage, StoredEvent } from '../../../contract/readback.js';
import {
  type StatusClass,
  seriesOf,
  statusClass,
  statusOf,
  workflowOf,
} from '../../domain/record-facts.js';
import type { ViewRange } from '../../domain/view-ranges.js';
import type { Page, Storage } from '../../storage/storage.js';

/**
 * Records read for the table, at most, of each kind (events, metrics), newest first. No cell
 * keeps the workflow today, so the table reads raw records; this bound keeps the read a few
 * pages whatever the project holds (docs/pages.md says the table then covers the newest ones).
 */
export const MAX_WORKFLOW_RECORDS = 2_000;
/** Rows of the table, at most (the most runs first). */
export const MAX_WORKFLOWS = 30;
const PAGE = 500;

/** One row of the table by workflow (GitHub) or CI job (other CIs). */
export interface WorkflowRow {
  workflow: string;
  runs: number;
  success: number;
  failure: number;
  /** success ÷ (success + failure); null when both are 0. */
  successRate: number | null;
  /** The median of the build-duration key's values reported by this workflow (null: none). */
  durationP50: number | null;
}

export interface WorkflowTable {
  rows: WorkflowRow[];
  /** The range held more events or metrics than were read: the table is of the newest. */
  partial: boolean;
  /** The oldest time read, when partial (epoch ms). */
  since: number | null;
}

/** Nearest rank: x[⌈n/2⌉ − 1] of the values in ascending order. */
const median = (values: number[]) =>
  values.length === 0
    ? null
    : ([...values].sort((a, b) => a - b)[Math.ceil(values.length / 2) - 1] as number);

/**
 * The range's events and build durations by workflow or CI job: runs and success rate from the
 * newest MAX_WORKFLOW_RECORDS events of the range (of `branch` and `eventType` when given), the
 * median duration from the newest MAX_WORKFLOW_RECORDS metric records holding the build-duration
 * key. Records without a workflow or job are left out.
 */
export async function workflowTable(
  storage: Pick<Storage, 'records'>,
  projectId: string,
  range: Pick<ViewRange, 'from' | 'to'>,
  filter: { branch: string | undefined; eventType: string | undefined },
  durationKey: string | null,
): Promise<WorkflowTable> {
  const rows = new Map<string, { counts: Record<StatusClass, number>; durations: number[] }>();
  const rowOf = (workflow: string) => {
    let row = rows.get(workflow);
    if (!row) {
      row = { counts: { success: 0, failure: 0, cancelled: 0, other: 0 }, durations: [] };
      rows.set(workflow, row);
    }
    return row;
  };
  const where = { from: range.from, to: range.to, branch: filter.branch };
  let partial = false;
  let since: number | null = null;

  /** Pages of one kind of record, newest first, up to the bound. */
  async function each<T extends { created_at: string }>(
    read: (before: RecordPosition | undefined) => Promise<Page<T, RecordPosition>>,
    use: (item: T) => void,
  ) {
    let before: RecordPosition | undefined;
    let seen = 0;
    for (;;) {
      const page = await read(before);
      for (const item of page.items) use(item);
      seen += page.items.length;
      if (page.nextBefore === null) return;
      if (seen >= MAX_WORKFLOW_RECORDS) {
        partial = true;
        const oldest = Date.parse(page.items.at(-1)?.created_at ?? '');
        since = since === null ? oldest : Math.max(since, oldest);
        return;
      }
      before = page.nextBefore;
    }
  }

  await Promise.all([
    each(
      (before) =>
        storage.records.events(projectId, { ...where, eventType: filter.eventType }, PAGE, before),
      (event) => {
        const workflow = workflowOf(event.payload);
        if (workflow !== null) rowOf(workflow).counts[statusClass(statusOf(event.payload))] += 1;
      },
    ),
    durationKey === null
      ? undefined
      : each(
          (before) => storage.records.metrics(projectId, where, PAGE, before),
          (metric) => {
            const workflow = workflowOf(metric.payload);
            const value = seriesOf(metric.payload).find(([key]) => key === durationKey)?.[1];
            if (workflow !== null && value !== undefined) rowOf(workflow).durations.push(value);
          },
        ),
  ]);

  const table = [...rows].map(([workflow, { counts, durations }]): WorkflowRow => {
    const decided = counts.success + counts.failure;
    return {
      workflow,
      runs: counts.success + counts.failure + counts.cancelled + counts.other,
      success: counts.success,
      failure: counts.failure,
      successRate: decided === 0 ? null : counts.success / decided,
      durationP50: median(durations),
    };
  });
  table.sort((a, b) => b.runs - a.runs || (a.workflow < b.workflow ? -1 : 1));
  return { rows: table.slice(0, MAX_WORKFLOWS), partial, since };
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
