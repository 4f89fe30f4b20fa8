import { statusClass } from '../domain/record-facts.js';
import {
  addSeriesSum,
  addSeriesValue,
  emptySeriesSum,
  type SeriesSum,
} from '../domain/series-sum.js';
import { binOf } from '../domain/sketch.js';
import { CELL_UNITS, HOUR_MS, MINUTE_MS, TEN_MINUTES_MS } from '../domain/time-buckets.js';

/**
 * How records become statistics cells, for both backends (each stores the cells its own way):
 * event counts per unit, event type and branch; series sums per minute, ten minutes and hour, of
 * one branch and of all branches; and the sums per series key.
 */

/** A metric as the fold needs it: its numeric leaves, and where it is stored (PostgreSQL). */
export interface FoldMetric {
  projectId: string;
  branch: string | null;
  t: number;
  seq?: number;
  leaves: [string, number][];
}

export interface FoldEvent {
  projectId: string;
  eventType: string;
  branch: string | null;
  status: string | null;
  createdAt: number;
}

/** Counts of one unit of events by status class (statusClass's order); branch '' is none. */
export interface EventCellCounts {
  projectId: string;
  unit: number;
  start: number;
  eventType: string;
  branch: string;
  counts: [success: number, failure: number, cancelled: number, other: number];
}

/** A series' cell: `branch` null is the cell of all branches together. */
export interface FoldedSeriesCell {
  projectId: string;
  key: string;
  unit: number;
  start: number;
  branch: string | null;
  sum: SeriesSum;
}

const STATUS_COLUMNS = ['success', 'failure', 'cancelled', 'other'];

/** A cell's branch in a map key: any branch name (even "null") apart from all branches. */
const branchId = (branch: string | null) => (branch === null ? '*' : `=${branch}`);

/** The events' counts, a cell per unit (of CELL_UNITS), event type and branch. */
export function foldEvents(events: Iterable<FoldEvent>): EventCellCounts[] {
  const cells = new Map<string, EventCellCounts>();
  // The previous event's cell of each unit: a group commit's events mostly follow one another in
  // the same project, type, branch and minute, and find their cells there without each cell's id
  // being built (a third of an event's garbage on the ingest path).
  let previousProject: string | undefined;
  let previousType = '';
  let previousBranch = '';
  const recent: EventCellCounts[] = [];
  for (const event of events) {
    const column = STATUS_COLUMNS.indexOf(statusClass(event.status));
    const branch = event.branch ?? '';
    const same =
      previousProject === event.projectId &&
      previousType === event.eventType &&
      previousBranch === branch;
    for (let i = 0; i < CELL_UNITS.length; i++) {
      const unit = CELL_UNITS[i] as number;
      const start = Math.floor(event.createdAt / unit) * unit;
      let cell = same ? recent[i] : undefined;
      if (cell?.start !== start) {
        // Two texts that may hold anything: the first one's length keeps the id unambiguous.
        const id = `${event.projectId}\n${unit}\n${start}\n${event.eventType.length}\n${event.eventType}${branch}`;
        cell = cells.get(id);
        if (!cell) {
          const { projectId, eventType } = event;
          cell = { projectId, unit, start, eventType, branch, counts: [0, 0, 0, 0] };
          cells.set(id, cell);
        }
        recent[i] = cell;
      }
      cell.counts[column as 0] += 1;
    }
    previousProject = event.projectId;
    previousType = event.eventType;
    previousBranch = branch;
  }
  return [...cells.values()];
}

/**
 * The metrics' cells of every unit (given in storage order, so that on equal times the later
 * record's value is the last), and their sums per series key (without bins: keys need no
 * percentiles). Values go into minute cells only; ten-minute and hour cells and keys are sums of
 * those (fewer steps per value: SQLite folds on the ingest path).
 */
export function foldMetrics(metrics: Iterable<FoldMetric>): {
  cells: FoldedSeriesCell[];
  keys: { projectId: string; key: string; sum: SeriesSum }[];
} {
  // By project, minute and branch, then by key.
  const minutes = new Map<string, Map<string, FoldedSeriesCell>>();
  for (const { projectId, t, seq, leaves, branch: rowBranch } of metrics) {
    const start = Math.floor(t / MINUTE_MS) * MINUTE_MS;
    const branch = rowBranch ?? '';
    // Its branch's cells, and the cells of all branches.
    const cellsOf = (cellBranch: string | null) => {
      const id = `${projectId}\n${start}\n${branchId(cellBranch)}`;
      let byKey = minutes.get(id);
      if (!byKey) {
        byKey = new Map();
        minutes.set(id, byKey);
      }
      return byKey;
    };
    const own = cellsOf(branch);
    const all = cellsOf(null);
    for (const [key, value] of leaves) {
      const bin = binOf(value);
      for (const [byKey, cellBranch] of [
        [own, branch],
        [all, null],
      ] as const) {
        let cell = byKey.get(key);
        if (!cell) {
          cell = {
            projectId,
            key,
            unit: MINUTE_MS,
            start,
            branch: cellBranch,
            sum: emptySeriesSum(),
          };
          byKey.set(key, cell);
        }
        addSeriesValue(cell.sum, t, value, bin, seq);
      }
    }
  }
  // Ten-minute and hour cells are sums of the minute cells (no two minutes share a time).
  const minuteCells = [...minutes.values()].flatMap((byKey) => [...byKey.values()]);
  const sumUp = (unit: number) => {
    const cells = new Map<string, FoldedSeriesCell>();
    for (const cell of minuteCells) {
      const start = Math.floor(cell.start / unit) * unit;
      const id = `${cell.projectId}\n${start}\n${cell.key.length}\n${cell.key}${branchId(cell.branch)}`;
      const known = cells.get(id);
      if (known) addSeriesSum(known.sum, cell.sum);
      else
        cells.set(id, { ...cell, unit, start, sum: { ...cell.sum, bins: new Map(cell.sum.bins) } });
    }
    return cells.values();
  };
  const keys = new Map<string, { projectId: string; key: string; sum: SeriesSum }>();
  for (const cell of minuteCells) {
    if (cell.branch !== null) continue;
    const seriesId = `${cell.projectId}\n${cell.key}`;
    let series = keys.get(seriesId);
    if (!series) {
      series = { projectId: cell.projectId, key: cell.key, sum: emptySeriesSum() };
      keys.set(seriesId, series);
    }
    addSeriesSum(series.sum, { ...cell.sum, bins: undefined });
  }
  return {
    cells: [...minuteCells, ...sumUp(TEN_MINUTES_MS), ...sumUp(HOUR_MS)],
    keys: [...keys.values()],
  };
}

/** An event of a workflow (or CI job) as the workflow fold needs it. */
export interface WorkflowFoldEvent extends FoldEvent {
  workflow: string;
}

/** A metric of a workflow (or CI job) as the workflow fold needs it. */
export interface WorkflowFoldMetric extends FoldMetric {
  workflow: string;
}

/** Counts of one workflow's events in one hour, by event type and branch ('' for none). */
export interface WorkflowEventCell extends Omit<EventCellCounts, 'unit'> {
  workflow: string;
}

/** One workflow's series over one hour and one branch ('' for none). */
export interface WorkflowSeriesCell {
  projectId: string;
  workflow: string;
  key: string;
  start: number;
  branch: string;
  sum: SeriesSum;
}

/**
 * The workflow cells (docs/pages.md, "By workflow or CI job"): a record's workflow or CI job and
 * hour, beside the cells above, so the page's figures and charts can be read for one workflow.
 * Hours only, and per branch only (all branches are added up when read): a workflow's view reads
 * whole hours, and a project has few branches per workflow.
 */
export function foldWorkflowEvents(events: Iterable<WorkflowFoldEvent>): WorkflowEventCell[] {
  const cells = new Map<string, WorkflowEventCell>();
  for (const event of events) {
    const column = STATUS_COLUMNS.indexOf(statusClass(event.status));
    const branch = event.branch ?? '';
    const start = Math.floor(event.createdAt / HOUR_MS) * HOUR_MS;
    const { projectId, workflow, eventType } = event;
    // Texts that may hold anything: each one's length keeps the id unambiguous.
    const id = `${projectId}\n${start}\n${workflow.length}\n${workflow}${eventType.length}\n${eventType}${branch}`;
    let cell = cells.get(id);
    if (!cell) {
      cell = { projectId, workflow, start, eventType, branch, counts: [0, 0, 0, 0] };
      cells.set(id, cell);
    }
    cell.counts[column as 0] += 1;
  }
  return [...cells.values()];
}

/** The workflow series cells of metrics given in storage order (the later value is the last). */
export function foldWorkflowMetrics(metrics: Iterable<WorkflowFoldMetric>): WorkflowSeriesCell[] {
  const cells = new Map<string, WorkflowSeriesCell>();
  for (const { projectId, workflow, t, seq, leaves, branch: rowBranch } of metrics) {
    const start = Math.floor(t / HOUR_MS) * HOUR_MS;
    const branch = rowBranch ?? '';
    const prefix = `${projectId}\n${start}\n${workflow.length}\n${workflow}${branch.length}\n${branch}`;
    for (const [key, value] of leaves) {
      const id = `${prefix}${key}`;
      let cell = cells.get(id);
      if (!cell) {
        cell = { projectId, workflow, key, start, branch, sum: emptySeriesSum() };
        cells.set(id, cell);
      }
      addSeriesValue(cell.sum, t, value, binOf(value), seq);
    }
  }
  return [...cells.values()];
}
