import type { ProjectSummaries, ProjectSummary, SummaryDay } from '../../../contract/summaries.js';
import { attentionOf, byAttention } from '../../domain/summaries/attention.js';
import type { KeyOwner } from '../../storage/storage.js';
import type { ProjectService } from '../project-service.js';
import type { StatsService } from '../stats-service.js';
import type { TestQueryService } from '../tests/test-query-service.js';
import type { VerdictReads } from '../verdicts/verdict-reads.js';

const DAY = 86_400_000;
/** The summaries' span: the last 7 days, a day at a time. */
export const SUMMARY_DAYS = 7;
/** The series key read as a build's duration (issue 28's default build-duration key). */
export const DURATION_KEY = 'duration_ms';
/** Active alerts counted per project, at most (a page of the alerts' list at a time). */
const MAX_ALERTS = 1000;
const ALERT_PAGE = 200;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Every project of the caller at a glance (the dashboard's overview and its JSON): the latest
 * status, the last 7 days' success rate and median build duration with one figure a day, active
 * alerts and flaky tests, from the same services as the API's reads, sorted by what needs
 * attention (domain/summaries/attention.ts). Each project is read under `run` (its heavy-read
 * cap), one after the other.
 */
export function projectSummaryService(services: {
  projects: ProjectService;
  stats: StatsService;
  testQueries: TestQueryService;
  verdicts: VerdictReads;
}) {
  /**
   * The project's active alerts, counted a page at a time: after judging has caught up, or
   * (`catchUp` false: a page that waited a bounded time) as judged so far.
   */
  async function activeAlerts(
    accountId: string,
    projectId: string,
    catchUp: boolean,
  ): Promise<number> {
    let count = 0;
    let cursor: string | undefined;
    do {
      const page = await services.verdicts.alerts(
        accountId,
        { projectId, status: 'active', limit: ALERT_PAGE, cursor },
        { catchUp },
      );
      count += page.alerts.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined && count < MAX_ALERTS);
    return Math.min(count, MAX_ALERTS);
  }

  async function summary(
    accountId: string,
    project: { id: string; name: string },
    from: number,
    to: number,
    catchUp: boolean,
  ): Promise<Omit<ProjectSummary, 'attention'>> {
    const projectId = project.id;
    const window = { projectId, from, to, branch: undefined };
    const [latest, builds, duration, alerts, flaky] = await Promise.all([
      services.stats.latestStatusEvent(accountId, projectId, {}),
      services.stats.buildSummary(accountId, {
        ...window,
        buckets: SUMMARY_DAYS,
        eventType: undefined,
      }),
      services.stats.key(accountId, projectId, DURATION_KEY),
      activeAlerts(accountId, projectId, catchUp),
      // The project is the account's: the calls beside this one checked it.
      services.testQueries.flakyCount(projectId, { from, to }),
    ]);
    const [week, daily] = duration
      ? await Promise.all([
          services.stats.series(accountId, { ...window, key: DURATION_KEY, buckets: 1 }),
          services.stats.series(accountId, { ...window, key: DURATION_KEY, buckets: SUMMARY_DAYS }),
        ])
      : [undefined, undefined];
    // Buckets by the day they start in (the lists leave out empty buckets).
    const dayOf = (bucket: { start: string }) =>
      Math.floor((Date.parse(bucket.start) - from) / DAY);
    const days: SummaryDay[] = [];
    for (let i = 0; i < SUMMARY_DAYS; i++) {
      const start = iso(from + i * DAY);
      const counts = builds.buckets.find((b) => dayOf(b) === i);
      const success = counts?.success ?? 0;
      const failure = counts?.failure ?? 0;
      days.push({
        start,
        success,
        failure,
        success_rate: success + failure === 0 ? null : success / (success + failure),
        median_duration: daily?.buckets.find((b) => dayOf(b) === i)?.p50 ?? null,
      });
    }
    const success = days.reduce((n, day) => n + day.success, 0);
    const failure = days.reduce((n, day) => n + day.failure, 0);
    return {
      id: projectId,
      name: project.name,
      latest: latest && { status: latest.status, event_type: latest.eventType },
      success,
      failure,
      success_rate: builds.success_rate,
      duration_key: duration ? DURATION_KEY : null,
      median_duration: week?.buckets[0]?.p50 ?? null,
      days,
      active_alerts: alerts,
      flaky_tests: flaky,
    };
  }

  return {
    /**
     * `catchUp: false`: the alerts as judged so far, for the dashboard's overview, which waited
     * for the judging a bounded time itself (`judgedForPage`); the API's JSON waits for all.
     */
    async summaries(
      caller: Pick<KeyOwner, 'accountId' | 'projectIds'>,
      run: <T>(projectId: string, read: () => Promise<T>) => Promise<T>,
      now = Date.now(),
      options: { catchUp?: boolean } = {},
    ): Promise<ProjectSummaries> {
      const to = now;
      const from = to - SUMMARY_DAYS * DAY;
      const projects = await services.projects.list(caller);
      const summaries: ProjectSummary[] = [];
      for (const project of projects) {
        const found = await run(project.id, () =>
          summary(caller.accountId, project, from, to, options.catchUp !== false),
        );
        summaries.push({ ...found, attention: attentionOf(found) });
      }
      return { from: iso(from), to: iso(to), projects: summaries.sort(byAttention) };
    },
  };
}

export type ProjectSummaryService = ReturnType<typeof projectSummaryService>;
