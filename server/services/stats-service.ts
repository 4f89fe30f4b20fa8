import { encodeKeyCursor } from '../../contract/cursor.js';
import { Limits } from '../../contract/limits.js';
import type {
  BuildSummary,
  BuildSummaryQuery,
  MetricKeyInfo,
  MetricKeys,
  MetricSeries,
  SeriesQuery,
} from '../../contract/stats-queries.js';
import {
  seriesBuckets,
  seriesTotal,
  summaryBuckets,
  valuePart,
} from '../domain/bucket-aggregates.js';
import { Invalid } from '../domain/domain-errors.js';
import { isContextKey, seriesOf, statusClass } from '../domain/record-facts.js';
import { addSeriesSum, emptySeriesSum } from '../domain/series-sum.js';
import { CELL_UNITS, planReads, readPlan, WORKFLOW_UNITS } from '../domain/time-buckets.js';
import type { SeriesKeyInfo, Storage } from '../storage/storage.js';
import type { ProjectAccess } from './project-access.js';
import type { VerdictReads } from './verdicts/verdict-reads.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A range defaults to the last 30 days. */
export const DEFAULT_RANGE_MS = 30 * DAY_MS;
/** The longest range read at once (bucket arithmetic stays exact in doubles below it). */
export const MAX_RANGE_MS = 5 * 366 * DAY_MS;

/** [from, to) of a query: the last 30 days by default, ending now or at `to`. */
export function rangeOf(
  query: { from?: number | undefined; to?: number | undefined },
  now = Date.now(),
) {
  const to = query.to ?? (query.from === undefined ? now : Math.max(now, query.from + 1));
  const from = query.from ?? to - DEFAULT_RANGE_MS;
  if (from >= to || to - from > MAX_RANGE_MS) throw new Invalid('range');
  return { from, to };
}

/**
 * The most statistics cells one series or build summary may read (time-buckets.ts, planReads):
 * 5 years in 100 buckets (45,420) or 2 years in 1,000 (32,568) pass, 5 years in 1,000 (58,920)
 * is refused with a 400 naming `buckets`, where it took half a second of the event loop on SQLite.
 */
export const MAX_PLAN_READS = Limits.planReadsMax;

/** The read plan of [from, to) in `buckets`; Invalid('read-budget') when it reads too much. */
function boundedPlan(from: number, to: number, buckets: number, workflow?: string) {
  const plan = readPlan(from, to, buckets, workflow === undefined ? CELL_UNITS : WORKFLOW_UNITS);
  if (planReads(plan) > MAX_PLAN_READS) throw new Invalid('read-budget');
  return plan;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * One workflow or CI job (the project page's `?workflow=`): read from the workflow cells, by
 * whole hours (the page's buckets are whole hours then: view-query.ts).
 */
export interface Workflow {
  workflow?: string | undefined;
}

const keyInfo = (key: SeriesKeyInfo): MetricKeyInfo => ({
  key: key.key,
  count: key.count,
  last_value: key.lastValue,
  last_at: iso(key.lastAt),
  unit: null,
  direction: null,
});

/**
 * A series and the median and p95 of its whole range, read for a caller already judged (the
 * owner's requests check access first; a channel's digest reads for its own project).
 */
export async function readSeries(
  storage: Pick<Storage, 'stats'>,
  query: SeriesQuery & Workflow,
): Promise<{ series: MetricSeries; total: { p50: number; p95: number } | null }> {
  const { from, to } = rangeOf(query);
  const { projectId, key, branch, workflow } = query;
  const plan = boundedPlan(from, to, query.buckets, workflow);
  const data =
    workflow === undefined
      ? await storage.stats.seriesData(projectId, key, branch, plan)
      : await storage.stats.workflowSeriesData(projectId, workflow, key, branch, plan);
  // The partial minutes at bucket edges come from the records, read as at write time.
  const values = data.records.flatMap((record) =>
    seriesOf(record.payload)
      .filter(([key]) => key === query.key)
      .map(([, value]) => valuePart(record.bucket, record.t, value)),
  );
  const parts = [...data.cells, ...values];
  const series: MetricSeries = {
    key: query.key,
    from: iso(from),
    to: iso(to),
    buckets: seriesBuckets(plan, parts),
  };
  return { series, total: seriesTotal(parts) };
}

/**
 * A key's records on one branch in [from, to) (the project page's key table under a branch
 * filter): how many, and the last value and its time; null when none. Read as the range's
 * series (cells, and the raw records at the edges and not folded yet), added up, for a caller
 * already judged.
 */
export async function readKeyOnBranch(
  storage: Pick<Storage, 'stats'>,
  query: { projectId: string; key: string; branch: string; from: number; to: number },
  buckets: number,
): Promise<{ count: number; lastValue: number; lastAt: number } | null> {
  // The range's own buckets (as its charts read it): fewer could be wider than the range.
  const plan = boundedPlan(query.from, query.to, buckets);
  const inRange = new Set(plan.buckets.map((bucket) => bucket.index));
  const data = await storage.stats.seriesData(query.projectId, query.key, query.branch, plan);
  const sum = emptySeriesSum();
  for (const cell of data.cells) if (inRange.has(cell.bucket)) addSeriesSum(sum, cell);
  for (const record of data.records) {
    if (!inRange.has(record.bucket)) continue;
    for (const [key, value] of seriesOf(record.payload)) {
      if (key === query.key) addSeriesSum(sum, valuePart(record.bucket, record.t, value));
    }
  }
  return sum.count === 0
    ? null
    : { count: sum.count, lastValue: sum.lastValue, lastAt: sum.lastAt };
}

/** The statistics of a project: its series keys, a series over time, its build summary. */
export function statsService(
  storage: Storage,
  access: ProjectAccess,
  verdicts: Pick<VerdictReads, 'describeKeys'>,
) {
  const own = (accountId: string, projectId: string) =>
    access.assertOwn({ accountId, projectIds: null }, projectId);

  async function seriesRead(accountId: string, query: SeriesQuery & Workflow) {
    await own(accountId, query.projectId);
    return readSeries(storage, query);
  }

  return {
    /** A page of the project's series keys (`limit` of them, after the key `after`). */
    async keys(
      accountId: string,
      projectId: string,
      page: { after?: string | undefined; limit: number; catchUp?: boolean },
    ): Promise<MetricKeys> {
      await own(accountId, projectId);
      // One more than asked tells whether a next page exists.
      const keys = await storage.stats.seriesKeys(projectId, {
        after: page.after,
        limit: page.limit + 1,
      });
      const shown = keys.slice(0, page.limit);
      const last = shown.at(-1);
      // Context leaves (ci.*, github.*) counted before issue 23 are not series: hidden, so a page
      // may hold fewer keys than its limit (the cursor still moves past them).
      return {
        keys: await verdicts.describeKeys(
          projectId,
          shown.filter((key) => !isContextKey(key.key)).map(keyInfo),
          { catchUp: page.catchUp !== false },
        ),
        nextCursor: keys.length > page.limit && last ? encodeKeyCursor(last.key) : null,
      };
    },

    /** One series key (the metric badge); undefined when no record has it. */
    async key(
      accountId: string,
      projectId: string,
      key: string,
    ): Promise<MetricKeyInfo | undefined> {
      await own(accountId, projectId);
      const found = await storage.stats.seriesKey(projectId, key);
      return found && keyInfo(found);
    },

    async series(accountId: string, query: SeriesQuery): Promise<MetricSeries> {
      return (await seriesRead(accountId, query)).series;
    },

    /**
     * A series and the median and p95 of its whole range, from the same read (the project page
     * draws its build-duration key and gives those figures in its headline).
     */
    seriesWithTotal: seriesRead,

    /** The latest status (the status badge), with an optional branch and event type. */
    async latestStatus(
      accountId: string,
      projectId: string,
      filter: { branch?: string | undefined; eventType?: string | undefined },
    ): Promise<string | null> {
      await own(accountId, projectId);
      return storage.stats.latestStatus(projectId, filter);
    },

    /** The latest event that has a status, and its type (the status badge's label). */
    async latestStatusEvent(
      accountId: string,
      projectId: string,
      filter: { branch?: string | undefined; eventType?: string | undefined },
    ): Promise<{ status: string; eventType: string } | null> {
      await own(accountId, projectId);
      return storage.stats.latestStatusEvent(projectId, filter);
    },

    async buildSummary(
      accountId: string,
      query: BuildSummaryQuery & Workflow,
    ): Promise<BuildSummary> {
      await own(accountId, query.projectId);
      const { from, to } = rangeOf(query);
      const { projectId, workflow } = query;
      const plan = boundedPlan(from, to, query.buckets, workflow);
      const filter = { branch: query.branch, eventType: query.eventType };
      const data =
        workflow === undefined
          ? await storage.stats.eventData(projectId, filter, plan)
          : await storage.stats.workflowEventData(projectId, workflow, filter, plan);
      const single = data.events.map((event) => {
        const counts = { bucket: event.bucket, success: 0, failure: 0, cancelled: 0, other: 0 };
        counts[statusClass(event.status)] = 1;
        return counts;
      });
      return { from: iso(from), to: iso(to), ...summaryBuckets(plan, [...data.cells, ...single]) };
    },
  };
}

export type StatsService = ReturnType<typeof statsService>;
