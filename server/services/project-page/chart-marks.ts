import { isJsonObject } from '../../../contract/json.js';
import type { StoredEvent } from '../../../contract/readback.js';
import { HOUR_MS } from '../../domain/time-buckets.js';
import type { ViewRange } from '../../domain/view-ranges.js';
import type { PageMarkRow } from '../../storage/project-page/page-repository.js';
import type { Storage } from '../../storage/storage.js';

/** Alerts and change points on one page, at most (the newest). */
export const MAX_MARKS = 50;
/**
 * Releases and deploys on one page, at most (the newest): each costs a small read of its minute,
 * and more lines than that on a chart no longer tell one from another.
 */
export const MAX_EVENT_MARKS = 30;

/**
 * A thin vertical line on the charts: a release, deploy or other marked event (on every chart and
 * the build-health bars), or an alert or change point (on its series' chart only, `key`).
 */
export interface ChartMark {
  /** `event`: a marked event type other than release and deploy (the label names its type). */
  kind: 'release' | 'deploy' | 'event' | 'alert' | 'change';
  /** Epoch ms. */
  at: number;
  key: string | null;
  /** What the tooltip says. */
  label: string;
  commit: string | null;
  url: string | null;
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
const httpUrl = (value: unknown) => {
  const url = text(value);
  return url && /^https?:\/\//.test(url) ? url : null;
};

/** A release or deploy as marked: its version, commit and link, from the Action's or CLI's fields. */
function eventMark(event: StoredEvent): ChartMark {
  const payload = event.payload ?? {};
  const github = isJsonObject(payload.github) ? payload.github : {};
  const ci = isJsonObject(payload.ci) ? payload.ci : {};
  const release = isJsonObject(github.release) ? github.release : {};
  const version = text(payload.version) ?? text(release.tag) ?? text(github.ref_name);
  const commit = text(github.sha) ?? text(ci.commit);
  const type = event.eventType;
  return {
    kind: type === 'release' || type === 'deploy' ? type : 'event',
    at: Date.parse(event.created_at),
    key: null,
    label: [type, version, event.description ?? undefined].filter(Boolean).join(' '),
    commit: commit ? commit.slice(0, 12) : null,
    url: httpUrl(release.url) ?? httpUrl(ci.build_url) ?? httpUrl(github.run_url),
  };
}

const number = (value: number) => value.toLocaleString('en', { maximumSignificantDigits: 4 });

const alertMark = (row: PageMarkRow): ChartMark => ({
  kind: 'alert',
  at: row.at,
  key: row.key,
  label: `alert: ${number(row.to)} past the limit ${number(row.from ?? 0)}`,
  commit: row.commit ? row.commit.slice(0, 12) : null,
  url: null,
});

const changeMark = (row: PageMarkRow): ChartMark => ({
  kind: 'change',
  at: row.at,
  key: row.key,
  label: `change point: mean ${number(row.from ?? 0)} → ${number(row.to)}`,
  commit: row.commit ? row.commit.slice(0, 12) : null,
  url: null,
});

/**
 * The marks of a range, oldest first: events of the marked types (`types`: the project's, release
 * and deploy by default) found through the event cells (the minutes that hold one, then the few
 * events of each such minute), active alerts raised in the range (of the branch shown), and the
 * change points found in it. The caller checked the project is the account's.
 */
export async function chartMarks(
  storage: Storage,
  projectId: string,
  range: Pick<ViewRange, 'from' | 'to'>,
  branch: string | undefined,
  types: readonly string[],
): Promise<ChartMark[]> {
  const { from, to } = range;
  const [hours, alerts, changes] = await Promise.all([
    storage.projectPage.eventHours(projectId, types, from, to, branch, MAX_EVENT_MARKS),
    storage.projectPage.alertMarks(projectId, from, to, branch, MAX_MARKS),
    storage.projectPage.changePointMarks(projectId, from, to, MAX_MARKS),
  ]);
  // The newest minutes that hold one, an hour at a time, until there are enough.
  const minutes: { start: number; eventType: string }[] = [];
  for (const hour of hours) {
    if (minutes.length >= MAX_EVENT_MARKS) break;
    const found = await storage.projectPage.eventMinutes(
      projectId,
      types,
      Math.max(from, hour),
      Math.min(to, hour + HOUR_MS),
      branch,
    );
    minutes.push(...found.slice(0, MAX_EVENT_MARKS - minutes.length));
  }
  // One small read per minute and type that holds some (a minute's events, of that type only).
  const pages = await Promise.all(
    minutes.map(({ start, eventType }) =>
      storage.records.events(
        projectId,
        { eventType, branch, from: Math.max(from, start), to: Math.min(to, start + 60_000) },
        MAX_EVENT_MARKS,
      ),
    ),
  );
  const events = pages
    .flatMap((page) => page.items)
    .map(eventMark)
    .sort((a, b) => b.at - a.at)
    .slice(0, MAX_EVENT_MARKS);
  return [...events, ...alerts.map(alertMark), ...changes.map(changeMark)].sort(
    (a, b) => a.at - b.at,
  );
}
