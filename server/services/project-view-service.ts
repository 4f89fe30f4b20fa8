import {
  decodeKeyCursor,
  decodeRecordCursor,
  encodeKeyCursor,
  encodeRecordCursor,
  type RecordPosition,
} from '../../contract/cursor.js';
import { isJsonObject } from '../../contract/json.js';
import type { Headline, MarkEventTypes } from '../../contract/project-page.js';
import type { EventPage } from '../../contract/readback.js';
import type {
  BuildSummary,
  MetricKeyInfo,
  MetricSeries,
  RecordQuery,
} from '../../contract/stats-queries.js';
import { NotFound } from '../domain/domain-errors.js';
import { branchOf, seriesOf } from '../domain/record-facts.js';
import type { ViewRange } from '../domain/view-ranges.js';
import type { ShareLinkInfo, Storage } from '../storage/storage.js';
import { type ChartMark, chartMarks } from './project-page/chart-marks.js';
import { type EventTypeRow, eventTypeTable } from './project-page/event-type-table.js';
import type { HeadlineService } from './project-page/headline-service.js';
import { projectKeyDisplay, projectMarkTypes } from './project-page/key-display-service.js';
import {
  type WorkflowTable,
  workflowTable,
  workflowTimeline,
} from './project-page/workflow-table.js';
import type { RecordService } from './record-service.js';
import type { ShareLinkService } from './share-link-service.js';
import { readKeyOnBranch, type StatsService } from './stats-service.js';
import type { VerdictReads } from './verdicts/verdict-reads.js';

/**
 * Charts drawn on one page, at most: the first keys of the key list's page, or those the page's
 * address names (`chart`, a key's "Draw" link). Every other key is listed, and drawn on demand.
 */
export const MAX_CHARTS = 12;
/** Rows of the key list on one page (its further pages follow `keys`, a key cursor). */
export const KEY_ROWS = 50;
/** Events per page of the timeline. */
export const TIMELINE_PAGE = 20;
/** Records read to name the branch and commit of single points, at most. */
const SINGLE_POINT_RECORDS = 600;

export interface ProjectView {
  projectId: string;
  name: string;
  range: ViewRange;
  branch: string | undefined;
  eventType: string | undefined;
  /** The workflow or CI job the timeline is filtered to (the table by workflow's row). */
  workflow: string | undefined;
  branches: string[];
  /** The range's events by type (the table), and whether more types were left out. */
  eventTypes: { rows: EventTypeRow[]; more: boolean };
  /** The range's runs, success rate and median duration by workflow or CI job (its cells). */
  workflows: WorkflowTable;
  /**
   * The key list's page shown: each key's records, last value and time over every branch and all
   * time, or, with a branch, on that branch in the range (null: no record there).
   */
  keys: PageKey[];
  /** The key list's page shown (undefined: the first) and the next one (undefined: none). */
  keysPage: string | undefined;
  keysNext: string | undefined;
  /** The keys the owner pinned (in pin order) and hidden (in key order). */
  pinned: string[];
  hidden: string[];
  /**
   * The charts drawn, regressions first: those with an alert or change point in the range, then
   * the pinned keys', then the build-duration key's, then the rest (those `chart` named, else the
   * first of the key list's page); a hidden key only when `chart` names it. A chart without a
   * point in the range is in `empty` instead.
   */
  series: MetricSeries[];
  /** Keys asked for that have no point in the range: listed in one line, not drawn. */
  empty: string[];
  /** Releases, deploys (or the project's marked event types), alerts and change points of the range, oldest first. */
  marks: ChartMark[];
  /** The event types marked on the charts, and whether the owner set them. */
  markTypes: MarkEventTypes;
  summary: BuildSummary;
  /** The figures at the top, each against the period before. */
  headline: Headline;
  timeline: EventPage;
  /** The page of the timeline shown (undefined: the newest). */
  before: string | undefined;
  /** Only for the owner's page. */
  shareLinks: ShareLinkInfo[] | undefined;
  /** The newest records of the range (when some bucket holds a single point). */
  singles: SinglePoint[];
  /**
   * Metric records the judging had still to judge when the page stopped waiting for it (0: none;
   * VerdictReads' PENDING_COUNT_MAX: that many or more): the page's verdicts may be incomplete.
   */
  pendingJudging: number;
}

/** A row of the page's key table (MetricKeyInfo, whose last value may be missing on a branch). */
export type PageKey = Omit<MetricKeyInfo, 'last_value' | 'last_at'> & {
  last_value: number | null;
  last_at: string | null;
};

/** A metric record as a single point's tooltip names it. */
export interface SinglePoint {
  at: number;
  /** Its series keys. */
  keys: Set<string>;
  branch: string | null;
  commit: string | null;
}

export interface ViewQuery {
  range: ViewRange;
  branch: string | undefined;
  /** One event type for the builds, headline and timeline (the table by event type's row). */
  eventType?: string | undefined;
  /** One workflow or CI job for the timeline (the table by workflow's row). */
  workflow?: string | undefined;
  /** The timeline's cursor (`nextCursor` of the page before). */
  before: string | undefined;
  /** The key list's cursor (its `nextCursor` of the page before). */
  keys?: string | undefined;
  /** Keys to draw instead of the key page's first (at most MAX_CHARTS). */
  charts?: string[] | undefined;
}

/** A page of the range's records, newest first, on one branch or all. */
const recordQuery = (
  projectId: string,
  range: ViewRange,
  branch: string | undefined,
  limit: number,
  cursor: RecordPosition | undefined,
  eventType?: string | undefined,
): RecordQuery => ({
  projectId,
  limit,
  cursor,
  branch,
  from: range.from,
  to: range.to,
  eventType,
  status: undefined,
});

/**
 * How the owner's view waits for the judging: 'bounded', the page (PAGE_JUDGING_WAIT_MS at most,
 * then a notice of what is pending); 'all', a CSV of one of its tables, a file that has no room
 * for a notice and so waits for every record like the API.
 */
export type JudgingWait = 'bounded' | 'all';

/**
 * Everything the project statistics page shows, from the same services as the API: for the
 * owner (`/dashboard/projects/<id>`) or for a share link (read-only, without its links).
 */
export function projectViewService(
  storage: Storage,
  services: {
    stats: StatsService;
    records: RecordService;
    shareLinks: ShareLinkService;
    headline: HeadlineService;
    verdicts: Pick<VerdictReads, 'judgedForPage' | 'judgedAll'>;
  },
) {
  async function view(
    accountId: string,
    projectId: string,
    query: ViewQuery,
    owner: boolean,
    wait: JudgingWait,
  ): Promise<ProjectView> {
    const project = await storage.projects.find(projectId);
    if (!project || project.accountId !== accountId) throw new NotFound('project');
    const { range, branch, eventType, workflow } = query;
    // The owner's page waits for the judging's backlog (the whole deployment's) a bounded time,
    // then shows what is judged and says how much is not (issue 28); every read below, the
    // units, directions, alerts and change points included, comes after the wait. A share page
    // never waits (describeKeys) and says nothing; the owner's CSV waits for all.
    let pendingJudging = 0;
    if (owner && wait === 'bounded') pendingJudging = await services.verdicts.judgedForPage();
    if (owner && wait === 'all') await services.verdicts.judgedAll();
    // A workflow filters the build health, the charts and the headline too: they are read from
    // its hour cells (the range is whole hours then: view-query.ts).
    const window = { from: range.from, to: range.to, buckets: range.buckets, branch, workflow };
    const cursor = query.before === undefined ? undefined : decodeRecordCursor(query.before);
    const keysAfter = query.keys === undefined ? undefined : decodeKeyCursor(query.keys);
    // Read once each: the build-health bars' buckets add up to the headline's builds and
    // success rate, and the build-duration key's chart gives its median and p95.
    const summaryRead = services.stats.buildSummary(accountId, { projectId, ...window, eventType });
    const { duration_key: durationKey } = await services.headline.durationKey(accountId, projectId);
    const durationRead =
      durationKey === null
        ? undefined
        : services.stats.seriesWithTotal(accountId, { projectId, key: durationKey, ...window });
    const [
      keys,
      summary,
      headline,
      timeline,
      branches,
      shareLinks,
      { types: markTypes, marks },
      eventTypes,
      display,
      workflows,
    ] = await Promise.all([
      // Units and directions as judged by now (describeKeys): the owner's view waited above.
      services.stats.keys(accountId, projectId, {
        after: keysAfter,
        limit: KEY_ROWS,
        catchUp: false,
      }),
      summaryRead,
      services.headline.headline(
        accountId,
        { projectId, from: range.from, to: range.to, branch, eventType, workflow },
        {
          summary: summaryRead,
          durations:
            durationKey === null || durationRead === undefined
              ? undefined
              : { key: durationKey, total: durationRead.then((read) => read.total) },
        },
        false,
      ),
      workflow === undefined
        ? services.records.events(
            accountId,
            recordQuery(projectId, range, branch, TIMELINE_PAGE, cursor, eventType),
          )
        : workflowTimeline(
            storage,
            projectId,
            range,
            { branch, eventType, workflow },
            TIMELINE_PAGE,
            cursor,
          ),
      storage.stats.branches(projectId),
      owner ? services.shareLinks.list(accountId, projectId) : undefined,
      projectMarkTypes(storage, projectId).then(async (types) => ({
        types,
        marks: await chartMarks(storage, projectId, range, branch, types.event_types),
      })),
      eventTypeTable(storage, services.stats, accountId, projectId, range, branch),
      projectKeyDisplay(storage, projectId),
      workflowTable(storage, projectId, range, { branch, eventType }, durationKey),
    ]);
    const flagged = new Set(marks.flatMap((mark) => (mark.key === null ? [] : [mark.key])));
    const pinned = new Set(display.pinned);
    const hidden = new Set(display.hidden);
    // Without `chart`, the keys that need a look and the pinned ones are drawn even when off the
    // key list's page; a hidden key is not drawn, even with an alert (the owner asked so).
    const asked = query.charts?.length
      ? query.charts
      : [
          ...flagged,
          ...pinned,
          ...(durationKey === null ? [] : [durationKey]),
          ...keys.keys.map((key) => key.key),
        ].filter((key) => !hidden.has(key));
    const rank = (key: string) =>
      flagged.has(key) ? 0 : pinned.has(key) ? 1 : key === durationKey ? 2 : 3;
    const drawn = [...new Set(asked)]
      .slice(0, MAX_CHARTS)
      .map((key, index) => ({ key, index }))
      .sort((a, b) => rank(a.key) - rank(b.key) || a.index - b.index)
      .map(({ key }) => key);
    // The statistics keep no key list per branch: with one, each key of the page is read on it.
    const onBranch = (b: string) =>
      Promise.all(
        keys.keys.map(async (key): Promise<PageKey> => {
          const on = await readKeyOnBranch(
            storage,
            { projectId, key: key.key, branch: b, from: range.from, to: range.to },
            range.buckets,
          );
          return {
            ...key,
            count: on?.count ?? 0,
            last_value: on?.lastValue ?? null,
            last_at: on === null ? null : new Date(on.lastAt).toISOString(),
          };
        }),
      );
    const [read, pageKeys] = await Promise.all([
      Promise.all(
        drawn.map((key) =>
          key === durationKey && durationRead
            ? durationRead.then((done) => done.series)
            : services.stats.series(accountId, { projectId, key, ...window }),
        ),
      ),
      branch === undefined ? (keys.keys as PageKey[]) : onBranch(branch),
    ]);
    const series = read.filter((s) => s.buckets.length > 0);
    const empty = read.filter((s) => s.buckets.length === 0).map((s) => s.key);
    const singles = series.some((s) => s.buckets.some((b) => b.count === 1))
      ? await singlePoints(accountId, projectId, range, branch)
      : [];
    return {
      projectId,
      name: project.name,
      range,
      branch,
      eventType,
      workflow,
      branches,
      eventTypes,
      workflows,
      keys: pageKeys,
      pinned: display.pinned,
      hidden: display.hidden,
      keysPage: keysAfter === undefined ? undefined : encodeKeyCursor(keysAfter),
      keysNext: keys.nextCursor ?? undefined,
      series,
      empty,
      marks,
      markTypes,
      summary,
      headline,
      timeline,
      before: cursor === undefined ? undefined : encodeRecordCursor(cursor),
      shareLinks: shareLinks?.links,
      singles,
      pendingJudging,
    };
  }

  /**
   * Where the points of a sparse range come from: the branch and commit of up to
   * SINGLE_POINT_RECORDS metric records of the range, newest first, for the tooltip of a bucket
   * that holds one point. A busier range has few single-point buckets, and they go without.
   */
  async function singlePoints(
    accountId: string,
    projectId: string,
    range: ViewRange,
    branch: string | undefined,
  ): Promise<SinglePoint[]> {
    const points: SinglePoint[] = [];
    let cursor: RecordPosition | undefined;
    do {
      const page = await services.records.metrics(
        accountId,
        recordQuery(projectId, range, branch, 200, cursor),
      );
      for (const metric of page.metrics) {
        const github = isJsonObject(metric.payload.github) ? metric.payload.github : {};
        points.push({
          at: Date.parse(metric.created_at),
          keys: new Set(seriesOf(metric.payload).map(([key]) => key)),
          branch: branchOf(metric.payload),
          commit: typeof github.sha === 'string' ? github.sha.slice(0, 12) : null,
        });
      }
      cursor = page.nextCursor === null ? undefined : decodeRecordCursor(page.nextCursor);
    } while (cursor !== undefined && points.length < SINGLE_POINT_RECORDS);
    return points;
  }

  /** The project (and its owner) a share link shows; an unknown or revoked token is NotFound. */
  async function shared(token: string): Promise<{ accountId: string; projectId: string }> {
    const projectId = await services.shareLinks.resolve(token);
    const project = projectId === undefined ? undefined : await storage.projects.find(projectId);
    if (projectId === undefined || !project) throw new NotFound('share-link');
    return { accountId: project.accountId, projectId };
  }

  return {
    /** The owner's page; a project of another account is NotFound (like an unknown one). */
    forOwner: (
      accountId: string,
      projectId: string,
      query: ViewQuery,
      wait: JudgingWait = 'bounded',
    ) => view(accountId, projectId, query, true, wait),

    shared,

    /** The page a share link shows, of the project `shared` found for its token. */
    forSharedProject: (owner: { accountId: string; projectId: string }, query: ViewQuery) =>
      view(owner.accountId, owner.projectId, query, false, 'bounded'),
  };
}

export type ProjectViewService = ReturnType<typeof projectViewService>;
