import type { RecordPosition } from '../../../contract/cursor.js';
import { isJsonObject } from '../../../contract/json.js';
import { type StatusClass, seriesOf, statusClass, statusOf } from '../../domain/record-facts.js';
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

/** The workflow of a record: the Action's `github.workflow`, else the CLI's `ci.job`. */
export function workflowOf(payload: Record<string, unknown> | null): string | null {
  for (const [object, field] of [
    ['github', 'workflow'],
    ['ci', 'job'],
  ] as const) {
    const holder = payload?.[object];
    const value = isJsonObject(holder) ? holder[field] : undefined;
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
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
