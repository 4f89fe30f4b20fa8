import { MAX_MARK_EVENT_TYPES } from '../../../../../contract/project-page.js';
import { RANGE_PRESETS } from '../../../../domain/view-ranges.js';
import type { ProjectView } from '../../../../services/project-view-service.js';
import type { ShareLinkInfo } from '../../../../storage/storage.js';
import { Csrf } from '../../dashboard/form-controls.js';
import {
  type Chrome,
  DashboardLayout,
  type LayoutProps,
  type PageAssets,
  SharedFrame,
} from '../../dashboard/views/dashboard-layout.js';
import { JudgingNotice } from '../../dashboard/views/judging-notice.js';
import { BuildHealth } from './build-health.js';
import { CsvLink } from './csv-link.js';
import { EventTypeTable } from './event-type-table.js';
import { formatNumber, formatTime } from './format.js';
import { HeadlineCard } from './headline.js';
import { NewShareLink } from './new-share-link.js';
import { ChartLegend } from './time-axis.js';
import { Timeline } from './timeline.js';
import { WorkflowTableCard } from './workflow-table.js';

/** Where the page lives and what it may do: the owner's page, or a share link's (read-only). */
export type StatsMode =
  | {
      kind: 'owner';
      path: string;
      csrf: string;
      created?: { url: string; path: string } | undefined;
    }
  | { kind: 'share'; path: string };

export interface StatsPageProps {
  view: ProjectView;
  mode: StatsMode;
  chrome: Chrome;
  assets: PageAssets;
}

/**
 * The page's address with these settings (the timeline's page last), and optionally the key
 * list's page and the charts to draw.
 */
export function statsHref(
  path: string,
  view: Pick<ProjectView, 'range' | 'branch'> & {
    eventType?: string | undefined;
    workflow?: string | undefined;
  },
  before?: string,
  keys?: { page?: string | undefined; chart?: string | undefined },
): string {
  const query = new URLSearchParams();
  const { range } = view;
  if (range.preset === 'custom') {
    query.set('range', 'custom');
    query.set('from', new Date(range.from).toISOString().slice(0, 10));
    query.set('to', new Date(range.to - 1).toISOString().slice(0, 10));
  } else {
    query.set('range', range.preset);
  }
  if (view.branch !== undefined) query.set('branch', view.branch);
  if (view.eventType !== undefined) query.set('type', view.eventType);
  if (view.workflow !== undefined) query.set('workflow', view.workflow);
  if (before !== undefined) query.set('before', before);
  if (keys?.page !== undefined) query.set('keys', keys.page);
  if (keys?.chart !== undefined) query.set('chart', keys.chart);
  return `${path}?${query}`;
}

/**
 * Where a table or chart of the page is as CSV, on the owner's page and a share link's alike
 * (the timeline's: the page of it shown, `before`).
 */
type CsvHref = ((table: string, key?: string) => string) | undefined;

function csvHrefOf(view: ProjectView, mode: StatsMode): CsvHref {
  return (table, key) => {
    const before = table === 'timeline' ? view.before : undefined;
    const base = statsHref(`${mode.path}/export.csv`, view, before);
    const extra = new URLSearchParams({ table, ...(key === undefined ? {} : { key }) });
    return `${base}&${extra}`;
  };
}

function Filters({ view, path }: { view: ProjectView; path: string }) {
  const { range } = view;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return (
    <form method="get" action={path} class="card filters" data-autosubmit>
      <div class="field">
        <label for="range">Time range</label>
        <select id="range" name="range">
          {Object.entries(RANGE_PRESETS).map(([id, preset]) => (
            <option value={id} selected={range.preset === id}>
              Last {preset.label}
            </option>
          ))}
          <option value="custom" selected={range.preset === 'custom'}>
            Custom days
          </option>
        </select>
      </div>
      <div class="field">
        <label for="from">From (custom)</label>
        <input id="from" name="from" type="date" value={day(range.from)} />
      </div>
      <div class="field">
        <label for="to">To (custom, inclusive)</label>
        <input id="to" name="to" type="date" value={day(range.to - 1)} />
      </div>
      <div class="field">
        <label for="branch">Branch</label>
        <select id="branch" name="branch">
          <option value="" selected={view.branch === undefined}>
            All branches
          </option>
          {view.branches.map((branch) => (
            <option value={branch} selected={view.branch === branch}>
              {branch}
            </option>
          ))}
        </select>
      </div>
      {view.eventType !== undefined && <input type="hidden" name="type" value={view.eventType} />}
      {view.workflow !== undefined && <input type="hidden" name="workflow" value={view.workflow} />}
      <div class="actions">
        <button class="button" type="submit">
          Apply
        </button>
      </div>
    </form>
  );
}

/** The owner's page: where its forms post, with their CSRF token. */
type Owner = { path: string; csrf: string } | undefined;

/** A button that pins, hides or (display '') shows a key again (owner pages only). */
function KeyDisplayButton(props: {
  owner: Owner;
  keyName: string;
  display: string;
  label: string;
}) {
  const { owner, keyName, display, label } = props;
  return owner === undefined ? null : (
    <form method="post" action={`${owner.path}/key-display`} class="inline-form">
      <Csrf token={owner.csrf} />
      <input type="hidden" name="key" value={keyName} />
      <input type="hidden" name="display" value={display} />
      {/* Named by aria-label: an sr-only span would sit outside the table's scroll box. */}
      <button class="button secondary small" type="submit" aria-label={`${label} ${keyName}`}>
        {label}
      </button>
    </form>
  );
}

/** The event types marked on the charts, set by the owner (empty: release and deploy). */
function MarkTypesForm({ owner, view }: { owner: NonNullable<Owner>; view: ProjectView }) {
  const { event_types: types, event_types_set: set } = view.markTypes;
  return (
    <form method="post" action={`${owner.path}/mark-types`} class="card mark-types">
      <Csrf token={owner.csrf} />
      <label for="mark-types">Event types marked on the charts</label>
      <input
        id="mark-types"
        name="event_types"
        value={set ? types.join(', ') : ''}
        placeholder="release, deploy"
        aria-describedby="mark-types-hint"
      />
      <button class="button secondary small" type="submit">
        Set
      </button>
      <span id="mark-types-hint" class="hint">
        Up to {MAX_MARK_EVENT_TYPES}, separated by commas; empty: release and deploy.
      </span>
    </form>
  );
}

/** The hidden keys in one line, each with its Show button on the owner's page. */
function HiddenKeys({ view, owner }: { view: ProjectView; owner: Owner }) {
  if (view.hidden.length === 0) return null;
  const flagged = new Set(view.marks.flatMap((mark) => (mark.key === null ? [] : [mark.key])));
  return (
    <p class="card hidden-keys" data-hidden-keys>
      Hidden, not drawn:{' '}
      {view.hidden.map((key, index) => (
        <>
          {index > 0 && ', '}
          <code>{key}</code>
          {flagged.has(key) && <strong> (alert or change point in range)</strong>}{' '}
          <KeyDisplayButton owner={owner} keyName={key} display="" label="Show" />
        </>
      ))}
    </p>
  );
}

/** One chart per series key; the data rides along as JSON for the script that draws it. */
function Metrics(props: { view: ProjectView; path: string; csv: CsvHref; owner: Owner }) {
  const { view, path, csv, owner } = props;
  const pinned = new Set(view.pinned);
  const hidden = new Set(view.hidden);
  const { range } = view;
  // The records of the range by bucket, to name a single point's branch and commit.
  const byBucket = new Map<number, ProjectView['singles']>();
  for (const point of view.singles) {
    const index = Math.floor((point.at - range.from) / range.width);
    byBucket.set(index, [...(byBucket.get(index) ?? []), point]);
  }
  const sourceOf = (key: string, start: string) => {
    const index = Math.floor((Date.parse(start) - range.from) / range.width);
    const found = (byBucket.get(index) ?? []).filter((point) => point.keys.has(key));
    return found.length === 1 ? [found[0]?.branch ?? null, found[0]?.commit ?? null] : [null, null];
  };
  const charts = view.series.map((series) => ({
    key: series.key,
    buckets: series.buckets.map((b) => [
      Date.parse(b.start) / 1000,
      b.p50,
      b.p95,
      b.min,
      b.max,
      b.count,
      b.last,
      ...(b.count === 1 ? sourceOf(series.key, b.start) : [null, null]),
    ]),
  }));
  // Inside <script>, `<` is escaped so the data cannot close the element.
  const marks = view.marks.map((m) => [m.at / 1000, m.kind, m.key, m.label, m.commit, m.url]);
  const data = JSON.stringify({ from: view.range.from, to: view.range.to, charts, marks }).replace(
    /</g,
    '\\u003c',
  );
  return (
    <section aria-labelledby="metrics-title">
      <h2 id="metrics-title" class="section-title">
        Metrics
      </h2>
      {view.keys.length === 0 && view.keysPage === undefined ? (
        <p class="card empty">No metrics yet: send some with E8 or the Action's `metrics` input.</p>
      ) : (
        <div class="charts">
          {view.series.map((series) => {
            const info = view.keys.find((k) => k.key === series.key);
            const points = series.buckets.reduce((n, b) => n + b.count, 0);
            return (
              <figure class="card chart-card">
                <figcaption>
                  <code>{series.key}</code>
                  {pinned.has(series.key) && <span class="pin-tag">pinned</span>}
                  <span class="muted">
                    {info && info.last_value !== null
                      ? `last ${formatNumber(info.last_value)}`
                      : ''}{' '}
                    · {points === 1 ? '1 point' : `${formatNumber(points)} points`} in range{' '}
                    <CsvLink href={csv?.('chart', series.key)} what={series.key} />
                  </span>
                </figcaption>
                {/* biome-ignore lint/a11y/useSemanticElements: a chart's group (it holds the marks, links or focusable, so not an image), no form's fieldset */}
                <div
                  class="chart"
                  data-key={series.key}
                  role="group"
                  aria-label={`${series.key}: median per bucket, with the 95th percentile and the range`}
                >
                  <noscript>
                    <p class="muted">Charts need JavaScript; the figures are in the table below.</p>
                  </noscript>
                </div>
                <ChartLegend />
              </figure>
            );
          })}
        </div>
      )}
      {view.marks.length > 0 && (
        <p class="hint marks-legend">
          Lines on the charts: events of type{' '}
          {view.markTypes.event_types.map((type, index) => (
            <>
              {index > 0 && (index === view.markTypes.event_types.length - 1 ? ' or ' : ', ')}
              <code>{type}</code>
            </>
          ))}{' '}
          (grey, on every chart and the build-health bars), alerts (red) and change points (orange,
          dashed) on their series' chart. Hover or focus one for its version, time and commit.
        </p>
      )}
      {owner && <MarkTypesForm owner={owner} view={view} />}
      <HiddenKeys view={view} owner={owner} />
      {view.empty.length > 0 && (
        <p class="card empty-charts" data-empty-charts>
          No points in this range:{' '}
          {view.empty.map((key, index) => (
            <>
              {index > 0 && ', '}
              <code>{key}</code>
            </>
          ))}
          .
        </p>
      )}
      {(view.keys.length > 0 || view.keysPage !== undefined) && (
        <div class="card table-wrap">
          <table>
            <caption class={view.branch === undefined ? 'sr-only' : 'hint'} data-keys-scope>
              {view.branch === undefined ? (
                'Series keys, in key order: records and last value over every branch and all time'
              ) : (
                <>
                  Series keys, in key order: records and last value on branch{' '}
                  <code>{view.branch}</code> in the range
                </>
              )}
            </caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">
                  {view.branch === undefined ? 'Records' : 'Records (branch, range)'}
                </th>
                <th scope="col">Last value</th>
                <th scope="col">Last at</th>
                <th scope="col">Chart</th>
                {owner && <th scope="col">On this page</th>}
              </tr>
            </thead>
            <tbody>
              {view.keys.map((key) => (
                <tr>
                  <td>
                    <code>{key.key}</code>
                    {pinned.has(key.key) && <span class="pin-tag">pinned</span>}
                    {hidden.has(key.key) && <span class="pin-tag">hidden</span>}
                  </td>
                  <td>{formatNumber(key.count)}</td>
                  <td>{key.last_value === null ? '–' : formatNumber(key.last_value)}</td>
                  <td class="muted">{key.last_at === null ? '–' : formatTime(key.last_at)}</td>
                  <td>
                    <a
                      href={statsHref(path, view, undefined, {
                        page: view.keysPage,
                        chart: key.key,
                      })}
                      data-draw-key={key.key}
                    >
                      Draw
                    </a>
                  </td>
                  {owner && (
                    <td class="key-display">
                      {pinned.has(key.key) ? (
                        <KeyDisplayButton
                          owner={owner}
                          keyName={key.key}
                          display=""
                          label="Unpin"
                        />
                      ) : (
                        <KeyDisplayButton
                          owner={owner}
                          keyName={key.key}
                          display="pinned"
                          label="Pin"
                        />
                      )}{' '}
                      {hidden.has(key.key) ? (
                        <KeyDisplayButton owner={owner} keyName={key.key} display="" label="Show" />
                      ) : (
                        <KeyDisplayButton
                          owner={owner}
                          keyName={key.key}
                          display="hidden"
                          label="Hide"
                        />
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          <nav class="pager" aria-label="Series keys">
            <CsvLink href={csv?.('keys')} what="the key table" />
            {view.keysPage !== undefined && (
              <a class="button secondary small" href={statsHref(path, view)}>
                First keys
              </a>
            )}
            {view.keysNext !== undefined && (
              <a
                class="button secondary small"
                rel="next"
                href={statsHref(path, view, undefined, { page: view.keysNext })}
              >
                More keys
              </a>
            )}
          </nav>
        </div>
      )}
      <script type="application/json" id="chart-data" dangerouslySetInnerHTML={{ __html: data }} />
    </section>
  );
}

function ShareLinks({ links, path, csrf }: { links: ShareLinkInfo[]; path: string; csrf: string }) {
  return (
    <section class="card" aria-labelledby="share-title">
      <h2 id="share-title">Share links</h2>
      <p class="muted">
        A share link shows this page read-only to anyone who has it, with badges for a README.
      </p>
      {links.length === 0 ? (
        <p class="empty">No share links.</p>
      ) : (
        <ul class="share-links">
          {links.map((link) => (
            <li>
              <code>{`${link.prefix}…`}</code>
              <span class="muted">created {formatTime(link.created_at)}</span>
              <form method="post" action={`${path}/share-links/revoke`} class="inline-form">
                <Csrf token={csrf} />
                <input type="hidden" name="id" value={link.id} />
                <button class="button secondary small" type="submit">
                  Revoke
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
      <form method="post" action={`${path}/share-links`}>
        <Csrf token={csrf} />
        <button class="button" type="submit">
          Create a share link
        </button>
      </form>
    </section>
  );
}

function Body({ view, mode }: { view: ProjectView; mode: StatsMode }) {
  const { range } = view;
  const csv = csvHrefOf(view, mode);
  return (
    <div class="stats">
      <div class="page-head">
        <div>
          <h1>{view.name}</h1>
          <p class="lead">
            {formatTime(new Date(range.from).toISOString())} –{' '}
            {formatTime(new Date(range.to).toISOString())}
            {view.branch === undefined ? ', all branches' : `, branch ${view.branch}`}
          </p>
          <nav aria-label="This project" class="project-nav">
            {/* The Tests view over the page's range and branch; a share link's is read-only. */}
            <a href={statsHref(`${mode.path}/tests`, { range: view.range, branch: view.branch })}>
              Tests: flaky, failing, slowest
            </a>
            {mode.kind === 'owner' && (
              <>
                {' · '}
                <a href={`${mode.path}/series`}>Series and thresholds</a>
                {' · '}
                <a href={`${mode.path}/data`}>Data, retention and export</a>
              </>
            )}
          </nav>
        </div>
      </div>
      <JudgingNotice pending={view.pendingJudging} />
      {mode.kind === 'owner' && mode.created && (
        <NewShareLink
          url={mode.created.url}
          path={mode.created.path}
          keys={view.series.map((s) => s.key)}
        />
      )}
      <HeadlineCard
        csv={csv?.('headline')}
        headline={view.headline}
        workflow={
          view.workflow === undefined
            ? undefined
            : {
                name: view.workflow,
                all: statsHref(mode.path, { ...view, workflow: undefined }),
              }
        }
        keys={view.keys.map((key) => key.key)}
        owner={mode.kind === 'owner' ? { path: mode.path, csrf: mode.csrf } : undefined}
      />
      <Filters view={view} path={mode.path} />
      <BuildHealth
        summary={view.summary}
        range={range}
        marks={view.marks}
        csv={csv?.('build-health')}
      />
      <EventTypeTable
        csv={csv?.('event-types')}
        view={view}
        hrefOf={(eventType) => statsHref(mode.path, { ...view, eventType })}
      />
      <WorkflowTableCard
        view={view}
        csv={csv?.('workflows')}
        hrefOf={(workflow) => statsHref(mode.path, { ...view, workflow })}
      />
      <Metrics
        view={view}
        path={mode.path}
        csv={csv}
        owner={mode.kind === 'owner' ? { path: mode.path, csrf: mode.csrf } : undefined}
      />
      <Timeline
        csv={csv?.('timeline')}
        timeline={view.timeline}
        first={view.before === undefined}
        workflow={view.workflow}
        pageHref={(before) => statsHref(mode.path, view, before)}
      />
      {mode.kind === 'owner' && view.shareLinks && (
        <ShareLinks links={view.shareLinks} path={mode.path} csrf={mode.csrf} />
      )}
      {mode.kind === 'owner' && (
        <section class="card" aria-labelledby="channels-link-title">
          <h2 id="channels-link-title">Notifications</h2>
          <p>
            <a href={`${mode.path}/channels`}>Channels</a>: send this project's builds, releases and
            alerts to Slack, Teams, Discord or your own receiver.
          </p>
        </section>
      )}
    </div>
  );
}

/** /dashboard/projects/<id>: the owner's statistics page. */
export function OwnerStatsView(
  props: StatsPageProps & Omit<LayoutProps, 'title' | 'section' | 'children' | 'csrf'>,
) {
  const { view, mode } = props;
  return (
    <DashboardLayout
      {...props}
      csrf={mode.kind === 'owner' ? mode.csrf : ''}
      title={view.name}
      section="projects"
    >
      <Body view={view} mode={mode} />
    </DashboardLayout>
  );
}

/** /share/<token>: the same page, read-only, without sign-in. */
export function SharedStatsView({ view, mode, chrome, assets }: StatsPageProps) {
  return (
    <SharedFrame title={view.name} chrome={chrome} assets={assets}>
      <Body view={view} mode={mode} />
    </SharedFrame>
  );
}
