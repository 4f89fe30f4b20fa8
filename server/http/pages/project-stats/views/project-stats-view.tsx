import { RANGE_PRESETS } from '../../../../domain/view-ranges.js';
import type { ProjectView } from '../../../../services/project-view-service.js';
import type { ShareLinkInfo } from '../../../../storage/storage.js';
import { Csrf } from '../../dashboard/form-controls.js';
import {
  type Chrome,
  DashboardLayout,
  type LayoutProps,
  type PageAssets,
  PageFrame,
} from '../../dashboard/views/dashboard-layout.js';
import { BuildHealth } from './build-health.js';
import { formatNumber, formatTime } from './format.js';
import { Timeline } from './timeline.js';

/** Where the page lives and what it may do: the owner's page, or a share link's (read-only). */
export type StatsMode =
  | { kind: 'owner'; path: string; csrf: string; created?: { url: string } | undefined }
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
  view: Pick<ProjectView, 'range' | 'branch'>,
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
  if (before !== undefined) query.set('before', before);
  if (keys?.page !== undefined) query.set('keys', keys.page);
  if (keys?.chart !== undefined) query.set('chart', keys.chart);
  return `${path}?${query}`;
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
      <div class="actions">
        <button class="button" type="submit">
          Apply
        </button>
      </div>
    </form>
  );
}

/** One chart per series key; the data rides along as JSON for the script that draws it. */
function Metrics({ view, path }: { view: ProjectView; path: string }) {
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
  const data = JSON.stringify({ from: view.range.from, to: view.range.to, charts }).replace(
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
                  <span class="muted">
                    {info ? `last ${formatNumber(info.last_value)}` : ''} · {points} points in range
                  </span>
                </figcaption>
                <div
                  class="chart"
                  data-key={series.key}
                  role="img"
                  aria-label={`${series.key}: median per bucket, with the 95th percentile and the range`}
                >
                  <noscript>
                    <p class="muted">Charts need JavaScript; the figures are in the table below.</p>
                  </noscript>
                </div>
              </figure>
            );
          })}
        </div>
      )}
      {(view.keys.length > 0 || view.keysPage !== undefined) && (
        <div class="card table-wrap">
          <table>
            <caption class="sr-only">Series keys, in key order</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Records</th>
                <th scope="col">Last value</th>
                <th scope="col">Last at</th>
                <th scope="col">Chart</th>
              </tr>
            </thead>
            <tbody>
              {view.keys.map((key) => (
                <tr>
                  <td>
                    <code>{key.key}</code>
                  </td>
                  <td>{formatNumber(key.count)}</td>
                  <td>{formatNumber(key.last_value)}</td>
                  <td class="muted">{formatTime(key.last_at)}</td>
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
                </tr>
              ))}
            </tbody>
          </table>
          <nav class="pager" aria-label="Series keys">
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

function ShareLinks({
  links,
  path,
  csrf,
  created,
}: {
  links: ShareLinkInfo[];
  path: string;
  csrf: string;
  created: { url: string } | undefined;
}) {
  return (
    <section class="card" aria-labelledby="share-title">
      <h2 id="share-title">Share links</h2>
      <p class="muted">
        A share link shows this page read-only to anyone who has it, with badges for a README.
      </p>
      {created && (
        <div class="notice ok" role="status">
          <p>New share link (shown once; copy it now):</p>
          <p class="copy-row">
            <input
              class="secret"
              id="new-share-link"
              readonly
              value={created.url}
              aria-label="New share link"
            />
            <button class="button secondary small" type="button" data-copy="new-share-link">
              Copy
            </button>
          </p>
          <p class="muted">
            Badges: <code>{`${created.url}/badge/status.svg`}</code> and{' '}
            <code>{`${created.url}/badge/metric/<key>.svg`}</code>
          </p>
        </div>
      )}
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
        </div>
      </div>
      <Filters view={view} path={mode.path} />
      <BuildHealth summary={view.summary} range={range} />
      <Metrics view={view} path={mode.path} />
      <Timeline
        timeline={view.timeline}
        first={view.before === undefined}
        pageHref={(before) => statsHref(mode.path, view, before)}
      />
      {mode.kind === 'owner' && view.shareLinks && (
        <ShareLinks
          links={view.shareLinks}
          path={mode.path}
          csrf={mode.csrf}
          created={mode.created}
        />
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
    <PageFrame
      title={view.name}
      chrome={chrome}
      assets={assets}
      home="/"
      bar={<span class="muted">Shared statistics (read-only)</span>}
    >
      <Body view={view} mode={mode} />
    </PageFrame>
  );
}
