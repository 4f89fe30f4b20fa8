import type {
  BuildSummary,
  BuildSummaryQuery,
  MetricKeys,
  MetricSeries,
  SeriesQuery,
} from '../../contract/stats-queries.js';
import { seriesBuckets, summaryBuckets, valuePart } from '../domain/bucket-aggregates.js';
import { Invalid } from '../domain/domain-errors.js';
import { isContextKey, seriesOf, statusClass } from '../domain/record-facts.js';
import { readPlan } from '../domain/time-buckets.js';
import type { Storage } from '../storage/storage.js';
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

const iso = (ms: number) => new Date(ms).toISOString();

/** The statistics of a project: its series keys, a series over time, its build summary. */
export function statsService(
  storage: Storage,
  access: ProjectAccess,
  verdicts: Pick<VerdictReads, 'describeKeys'>,
) {
  const own = (accountId: string, projectId: string) =>
    access.assertOwn({ accountId, projectIds: null }, projectId);

  return {
    async keys(accountId: string, projectId: string): Promise<MetricKeys> {
      await own(accountId, projectId);
      const keys = await storage.stats.seriesKeys(projectId);
      // Context leaves (ci.*, github.*) counted before issue 23 are not series: hidden.
      return verdicts.describeKeys(
        projectId,
        keys
          .filter((key) => !isContextKey(key.key))
          .map((key) => ({
            key: key.key,
            count: key.count,
            last_value: key.lastValue,
            last_at: iso(key.lastAt),
            unit: null,
            direction: null,
          })),
      );
    },

    async series(accountId: string, query: SeriesQuery): Promise<MetricSeries> {
      await own(accountId, query.projectId);
      const { from, to } = rangeOf(query);
      const plan = readPlan(from, to, query.buckets);
      const data = await storage.stats.seriesData(query.projectId, query.key, query.branch, plan);
      // The partial minutes at bucket edges come from the records, read as at write time.
      const values = data.records.flatMap((record) =>
        seriesOf(record.payload)
          .filter(([key]) => key === query.key)
          .map(([, value]) => valuePart(record.bucket, record.t, value)),
      );
      return {
        key: query.key,
        from: iso(from),
        to: iso(to),
        buckets: seriesBuckets(plan, [...data.cells, ...values]),
      };
    },

    /** The latest status (the status badge), with an optional branch and event type. */
    async latestStatus(
      accountId: string,
      projectId: string,
      filter: { branch?: string | undefined; eventType?: string | undefined },
    ): Promise<string | null> {
      await own(accountId, projectId);
      return storage.stats.latestStatus(projectId, filter);
    },

    async buildSummary(accountId: string, query: BuildSummaryQuery): Promise<BuildSummary> {
      await own(accountId, query.projectId);
      const { from, to } = rangeOf(query);
      const plan = readPlan(from, to, query.buckets);
      const data = await storage.stats.eventData(
        query.projectId,
        { branch: query.branch, eventType: query.eventType },
        plan,
      );
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
