import { decodeCursor, encodeCursor } from '../../../contract/cursor.js';
import type { MetricKeyInfo } from '../../../contract/stats-queries.js';
import type {
  Alert,
  AlertPage,
  AlertQuery,
  ChangePointEntry,
  ChangePointQuery,
  ComparedKey,
  CompareQuery,
  Comparison,
  Direction,
  VerdictName,
} from '../../../contract/verdicts.js';
import { Invalid, NotFound } from '../../domain/domain-errors.js';
import type { AlertRow, JudgedRecord, Storage } from '../../storage/storage.js';
import type { ProjectAccess } from '../project-access.js';
import { defaultBranchOf } from './default-branch.js';
import type { JudgingWorker } from './judging-worker.js';

const NO_CURSOR = Number.MAX_SAFE_INTEGER;

/**
 * How long a page (the owner's project page, the dashboard's overview) waits for the judging to
 * catch up before it shows what is judged, with a notice of what is not (issue 28). The backlog
 * is the whole deployment's: after an upgrade, an import or a burst of ingest, judging it takes
 * seconds to minutes, and a page people open first must not wait that long. A second is enough
 * for the usual few records an ingest leaves (so the page is then complete, with no notice) and
 * short enough to read as a page load. The JSON API still waits for all (docs/decisions.md).
 */
export const PAGE_JUDGING_WAIT_MS = 1000;
/** Records still to judge counted for the notice, at most (the count's cost: `pendingCount`). */
export const PENDING_COUNT_MAX = 100_000;

export const asAlert = (row: AlertRow): Alert => ({
  id: row.id,
  key: row.key,
  branch: row.branch,
  record_id: row.recordId,
  commit: row.commit,
  value: row.value,
  baseline: row.baseline,
  limit: row.limit,
  side: row.side,
  test: row.test,
  created_at: new Date(row.createdAt).toISOString(),
  status: row.status,
});

/**
 * What verdicts show: the series keys with their unit and direction, a record compared with its
 * baseline, alerts, change points. Each first lets the judging catch up, so it includes every
 * record stored before the request; pages may wait a bounded time instead (`judgedForPage`).
 */
export function verdictReads(storage: Storage, access: ProjectAccess, judging: JudgingWorker) {
  const own = (accountId: string, projectId: string) =>
    access.assertOwn({ accountId, projectIds: null }, projectId);

  async function settingsMap(projectId: string) {
    const settings = await storage.verdicts.seriesSettings(projectId);
    return new Map(settings.map((s) => [s.key, s]));
  }

  async function ownAlert(accountId: string, id: string): Promise<AlertRow> {
    const row = await storage.verdicts.alert(id);
    const project = row && (await storage.projects.find(row.projectId));
    if (!row || project?.accountId !== accountId) throw new NotFound('alert');
    return row;
  }

  return {
    /**
     * For pages: waits for the judging to catch up, at most PAGE_JUDGING_WAIT_MS, and answers how
     * many records are still to judge (0: every record stored before the call is judged; at most
     * PENDING_COUNT_MAX, meaning that many or more). The page then reads verdicts with `catchUp:
     * false` and says they may be incomplete when this is not 0. Judging goes on after the wait.
     */
    async judgedForPage(): Promise<number> {
      if (await judging.catchUpWithin(PAGE_JUDGING_WAIT_MS)) return 0;
      return storage.verdicts.pendingCount(PENDING_COUNT_MAX);
    },

    /** Waits until every record stored before the call is judged (what the API's reads do). */
    judgedAll: (): Promise<void> => judging.catchUp(),

    /**
     * get-metric-keys' entries with their unit and direction. `catchUp: false` (share pages and
     * badges) takes the settings as judged so far instead of waiting for the judging's backlog,
     * which is the whole deployment's: a bulk of records stored by any tenant would otherwise hold
     * a read of this project for as long as judging them takes (issue 22, part 1).
     */
    async describeKeys(
      projectId: string,
      keys: MetricKeyInfo[],
      options: { catchUp?: boolean } = {},
    ): Promise<MetricKeyInfo[]> {
      if (options.catchUp !== false) await judging.catchUp();
      const settings = await settingsMap(projectId);
      return keys.map((entry) => ({
        ...entry,
        unit: settings.get(entry.key)?.unit ?? null,
        direction: settings.get(entry.key)?.direction ?? null,
      }));
    },

    async compare(accountId: string, query: CompareQuery): Promise<Comparison> {
      await own(accountId, query.projectId);
      await judging.catchUp();
      const record: JudgedRecord | undefined =
        query.record !== undefined
          ? await storage.verdicts.record(query.projectId, query.record)
          : await storage.verdicts.latestOfCommit(query.projectId, query.commit as string);
      if (!record) throw new NotFound('record');
      const [values, settings, alerts] = await Promise.all([
        storage.verdicts.valuesOf(record.seq),
        settingsMap(query.projectId),
        storage.verdicts.alertsOfRecord(record.id),
      ]);
      const keys = values.map((v): ComparedKey => {
        const setting = settings.get(v.key);
        return {
          key: v.key,
          unit: setting?.unit ?? null,
          direction: (setting?.direction ?? null) as Direction,
          value: v.value,
          baseline: v.baseline,
          lower_limit: v.lowerLimit,
          upper_limit: v.upperLimit,
          change: v.baseline === null || v.baseline === 0 ? null : v.value / v.baseline - 1,
          test: v.test,
          sample_size: v.sampleSize,
          verdict: v.verdict as VerdictName,
          base: { branch: v.baseBranch, commit: v.baseCommit },
        };
      });
      return {
        record: { id: record.id, branch: record.branch, commit: record.commit },
        keys,
        alerts: alerts.map(asAlert),
      };
    },

    /**
     * `catchUp: false`: the alerts raised so far, without waiting for the judging's backlog (a
     * page that waited with `judgedForPage` and says what is pending); the API always waits.
     */
    async alerts(
      accountId: string,
      query: AlertQuery,
      options: { catchUp?: boolean } = {},
    ): Promise<AlertPage> {
      await own(accountId, query.projectId);
      if (options.catchUp !== false) await judging.catchUp();
      let before = NO_CURSOR;
      if (query.cursor !== undefined) {
        const decoded = decodeCursor(query.cursor);
        if (decoded === undefined) throw new Invalid('range');
        before = decoded;
      }
      const page = await storage.verdicts.alerts(
        query.projectId,
        query.status,
        query.limit,
        before,
      );
      return {
        alerts: page.items.map(asAlert),
        nextCursor: page.nextBefore === null ? null : encodeCursor(page.nextBefore),
      };
    },

    /** `projectId`: only an alert of that project (a page of one project); else any of the account. */
    async setAlertStatus(
      accountId: string,
      id: string,
      status: 'active' | 'dismissed',
      projectId?: string,
    ): Promise<Alert> {
      const row = await ownAlert(accountId, id);
      if (projectId !== undefined && row.projectId !== projectId) throw new NotFound('alert');
      await storage.verdicts.setAlertStatus(id, status);
      return asAlert({ ...row, status });
    },

    async changePoints(
      accountId: string,
      query: ChangePointQuery,
    ): Promise<{ change_points: ChangePointEntry[] }> {
      await own(accountId, query.projectId);
      await judging.catchUp();
      const from = query.from ?? 0;
      const to = query.to ?? Number.MAX_SAFE_INTEGER;
      if (from >= to) throw new Invalid('range');
      const rows = await storage.verdicts.changePoints(query.projectId, query.key, from, to);
      return {
        change_points: rows.map((row) => ({
          record_id: row.recordId,
          commit: row.commit,
          at: new Date(row.at).toISOString(),
          before_mean: row.beforeMean,
          after_mean: row.afterMean,
          change: row.change,
          p_value: row.pValue,
        })),
      };
    },

    /** The default branch in force (for pages). */
    async defaultBranch(projectId: string): Promise<string> {
      const stored = await storage.verdicts.projectSettings(projectId);
      return defaultBranchOf(storage, projectId, stored.defaultBranch);
    },
  };
}

export type VerdictReads = ReturnType<typeof verdictReads>;
