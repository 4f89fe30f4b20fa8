import { decodeCursor, encodeCursor } from '../../contract/cursor.js';
import type { EventPage } from '../../contract/readback.js';
import type { BuildSummary, MetricKeys, MetricSeries } from '../../contract/stats-queries.js';
import { NotFound } from '../domain/domain-errors.js';
import type { ViewRange } from '../domain/view-ranges.js';
import type { ShareLinkInfo, Storage } from '../storage/storage.js';
import type { RecordService } from './record-service.js';
import type { ShareLinkService } from './share-link-service.js';
import type { StatsService } from './stats-service.js';

/** Charts drawn on one page, at most (the keys list shows every key). */
export const MAX_CHARTS = 12;
/** Events per page of the timeline. */
export const TIMELINE_PAGE = 20;

export interface ProjectView {
  projectId: string;
  name: string;
  range: ViewRange;
  branch: string | undefined;
  branches: string[];
  keys: MetricKeys['keys'];
  series: MetricSeries[];
  summary: BuildSummary;
  timeline: EventPage;
  /** The page of the timeline shown (undefined: the newest). */
  before: string | undefined;
  /** Only for the owner's page. */
  shareLinks: ShareLinkInfo[] | undefined;
}

export interface ViewQuery {
  range: ViewRange;
  branch: string | undefined;
  /** The timeline's cursor (`nextCursor` of the page before). */
  before: string | undefined;
}

/**
 * Everything the project statistics page shows, from the same services as the API: for the
 * owner (`/dashboard/projects/<id>`) or for a share link (read-only, without its links).
 */
export function projectViewService(
  storage: Storage,
  services: { stats: StatsService; records: RecordService; shareLinks: ShareLinkService },
) {
  async function view(
    accountId: string,
    projectId: string,
    query: ViewQuery,
    owner: boolean,
  ): Promise<ProjectView> {
    const project = await storage.projects.find(projectId);
    if (!project || project.accountId !== accountId) throw new NotFound('project');
    const { range, branch } = query;
    const window = { from: range.from, to: range.to, buckets: range.buckets, branch };
    const cursor = query.before === undefined ? undefined : decodeCursor(query.before);
    const [keys, summary, timeline, branches, shareLinks] = await Promise.all([
      services.stats.keys(accountId, projectId),
      services.stats.buildSummary(accountId, { projectId, ...window, eventType: undefined }),
      services.records.events(accountId, {
        projectId,
        limit: TIMELINE_PAGE,
        cursor,
        branch,
        from: range.from,
        to: range.to,
        eventType: undefined,
        status: undefined,
      }),
      storage.stats.branches(projectId),
      owner ? services.shareLinks.list(accountId, projectId) : undefined,
    ]);
    const series = await Promise.all(
      keys.keys
        .slice(0, MAX_CHARTS)
        .map((key) => services.stats.series(accountId, { projectId, key: key.key, ...window })),
    );
    return {
      projectId,
      name: project.name,
      range,
      branch,
      branches,
      keys: keys.keys,
      series,
      summary,
      timeline,
      before: cursor === undefined ? undefined : encodeCursor(cursor),
      shareLinks: shareLinks?.links,
    };
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
    forOwner: (accountId: string, projectId: string, query: ViewQuery) =>
      view(accountId, projectId, query, true),

    shared,

    /** The page a share link shows; an unknown or revoked token is NotFound. */
    async forShare(token: string, query: ViewQuery): Promise<ProjectView> {
      const { accountId, projectId } = await shared(token);
      return view(accountId, projectId, query, false);
    },
  };
}

export type ProjectViewService = ReturnType<typeof projectViewService>;
