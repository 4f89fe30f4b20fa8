import type {
  DurationKeySetting,
  Headline,
  HeadlineFigure,
  HeadlineQuery,
} from '../../../contract/project-page.js';
import type { BuildSummary } from '../../../contract/stats-queries.js';
import { unitOf } from '../../domain/unit-format.js';
import type { Storage } from '../../storage/storage.js';
import type { ProjectAccess } from '../project-access.js';
import { rangeOf, type StatsService, type Workflow } from '../stats-service.js';
import type { TestQueryService } from '../tests/test-query-service.js';
import type { VerdictReads } from '../verdicts/verdict-reads.js';

/** The build-duration key when the owner set none, if the project has it. */
export const DEFAULT_DURATION_KEY = 'duration_ms';

const iso = (ms: number) => new Date(ms).toISOString();

/** The project's build-duration key: the owner's, else `duration_ms` when it has records. */
export async function projectDurationKey(
  storage: Pick<Storage, 'projectPage' | 'stats'>,
  projectId: string,
): Promise<DurationKeySetting> {
  const stored = await storage.projectPage.durationKey(projectId);
  if (stored !== null) return { projectId, duration_key: stored, duration_key_set: true };
  const found = await storage.stats.seriesKey(projectId, DEFAULT_DURATION_KEY);
  return {
    projectId,
    duration_key: found ? DEFAULT_DURATION_KEY : null,
    duration_key_set: false,
  };
}

/** What the page read already of the current period (headline's `current`). */
export interface Known {
  summary?: Promise<BuildSummary> | undefined;
  /** The median and p95 of one key over the period (null: no value). */
  durations?: { key: string; total: Promise<{ p50: number; p95: number } | null> } | undefined;
}

/** The figures of one period. */
interface Period {
  builds: number;
  successRate: number | null;
  p50: number | null;
  p95: number | null;
  alerts: number;
  flaky: number;
}

/**
 * The project page's headline (docs/pages.md): builds, success rate, median and p95 build
 * duration, active alerts and flaky tests over a range, each beside the same figure over the
 * period of the same length just before it. Everything is read from the statistics cells (one
 * bucket per period), the alerts and the tests' runs, never from the raw records.
 */
export function headlineService(
  storage: Storage,
  access: ProjectAccess,
  services: {
    stats: StatsService;
    tests: Pick<TestQueryService, 'flakyCount'>;
    verdicts: Pick<VerdictReads, 'describeKeys'>;
  },
) {
  const own = (accountId: string, projectId: string) =>
    access.assertOwn({ accountId, projectIds: null }, projectId);

  const durationKey = (projectId: string) => projectDurationKey(storage, projectId);

  async function period(
    accountId: string,
    projectId: string,
    key: string | null,
    window: { from: number; to: number; branch: string | undefined } & Workflow,
    eventType: string | undefined,
    known: Known | undefined,
  ): Promise<Period> {
    const { from, to, branch, workflow } = window;
    const one = { projectId, from, to, branch, workflow, buckets: 1 };
    const [summary, durations, alerts, flaky] = await Promise.all([
      known?.summary ?? services.stats.buildSummary(accountId, { ...one, eventType }),
      key === null
        ? null
        : key === known?.durations?.key
          ? known.durations.total
          : services.stats.seriesWithTotal(accountId, { ...one, key }).then((read) => read.total),
      storage.projectPage.activeAlerts(projectId, from, to, branch),
      services.tests.flakyCount(projectId, { branch, from, to }),
    ]);
    // One bucket, or the page's buckets: their counts add up to the period's.
    const bucket = summary.buckets.reduce(
      (sum, b) => ({
        success: sum.success + b.success,
        failure: sum.failure + b.failure,
        cancelled: sum.cancelled + b.cancelled,
        other: sum.other + b.other,
      }),
      { success: 0, failure: 0, cancelled: 0, other: 0 },
    );

    return {
      builds: bucket.success + bucket.failure + bucket.cancelled + bucket.other,
      successRate: summary.success_rate,
      p50: durations?.p50 ?? null,
      p95: durations?.p95 ?? null,
      alerts,
      flaky,
    };
  }

  return {
    durationKey: async (accountId: string, projectId: string) => {
      await own(accountId, projectId);
      return durationKey(projectId);
    },

    /** The owner's key (checked only for length: a key may have no records yet); null: default. */
    async setDurationKey(
      accountId: string,
      projectId: string,
      key: string | null,
    ): Promise<DurationKeySetting> {
      await own(accountId, projectId);
      await storage.projectPage.setDurationKey(projectId, key);
      return durationKey(projectId);
    },

    /**
     * `current`: what the caller reads anyway of exactly this range and branch (the page: the
     * build summary in its buckets, a key's series), so it is not read twice.
     */
    async headline(
      accountId: string,
      query: HeadlineQuery & Workflow,
      current?: Known,
      /**
       * false: the duration key's direction as judged so far (share pages, and the owner's page
       * after its bounded wait; see describeKeys).
       */
      catchUp = true,
    ): Promise<Headline> {
      const { projectId, branch, eventType, workflow } = query;
      await own(accountId, projectId);
      const { from, to } = rangeOf(query);
      const before = { from: from - (to - from), to: from };
      const setting = await durationKey(projectId);
      const key = setting.duration_key;
      const [now, then, described] = await Promise.all([
        period(accountId, projectId, key, { from, to, branch, workflow }, eventType, current),
        period(accountId, projectId, key, { ...before, branch, workflow }, eventType, undefined),
        key === null
          ? []
          : services.verdicts.describeKeys(
              projectId,
              [{ key, count: 0, last_value: 0, last_at: iso(0), unit: null, direction: null }],
              { catchUp },
            ),
      ]);
      const series = described[0];
      // The declared unit, else the one the key's name ends with (`duration_ms`: ms).
      const unit = key === null ? null : unitOf(key, series?.unit);
      // A duration is better lower unless the series says otherwise.
      const durationDirection = series?.direction ?? 'lower';
      const figure = (
        pick: (p: Period) => number | null,
        direction: HeadlineFigure['direction'],
        unit: string | null = null,
      ): HeadlineFigure => ({ value: pick(now), previous: pick(then), direction, unit });
      return {
        ...setting,
        from: iso(from),
        to: iso(to),
        previous_from: iso(before.from),
        previous_to: iso(before.to),
        branch: branch ?? null,
        eventType: eventType ?? null,
        builds: figure((p) => p.builds, null),
        success_rate: figure((p) => p.successRate, 'higher'),
        duration_p50: figure((p) => p.p50, durationDirection, unit),
        duration_p95: figure((p) => p.p95, durationDirection, unit),
        active_alerts: figure((p) => p.alerts, 'lower'),
        flaky_tests: figure((p) => p.flaky, 'lower'),
      };
    },
  };
}

export type HeadlineService = ReturnType<typeof headlineService>;
