import { isJsonObject } from '../../../../../contract/json.js';
import type { EventPage, StoredEvent } from '../../../../../contract/readback.js';
import { branchOf, statusClass, statusOf } from '../../../../domain/record-facts.js';
import { formatTime } from './format.js';

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
const httpUrl = (value: unknown) => {
  const url = text(value);
  return url && /^https?:\/\//.test(url) ? url : undefined;
};

/** Where a commit's page is, under the repository's URL, on the hosts whose CI says where that is. */
const COMMIT_PATH: Record<string, string> = {
  github: '/commit/',
  gitea: '/commit/',
  forgejo: '/commit/',
  gitlab: '/-/commit/',
  bitbucket: '/commits/',
};

/**
 * The commit and run links of the payload's `github` object, else of its neutral `ci` object (the
 * CLI's, on any CI): the run is the build URL, the commit lives on the same server as the run
 * when the CI hosts the repository too (GitHub, Gitea, Forgejo, GitLab, Bitbucket).
 */
function commitAndRun(payload: Record<string, unknown>): [string, string][] {
  const github = isJsonObject(payload.github) ? payload.github : undefined;
  const ci = isJsonObject(payload.ci) ? payload.ci : {};
  const sha = text(github ? github.sha : ci.commit);
  const repository = text(github ? github.repository : ci.repository);
  const runUrl = httpUrl(github ? github.run_url : ci.build_url);
  const path = github ? '/commit/' : COMMIT_PATH[text(ci.provider) ?? ''];
  const links: [string, string][] = [];
  if (sha && repository && runUrl && path) {
    const server = runUrl.slice(0, runUrl.indexOf(`/${repository}/`));
    if (server) links.push([`commit ${sha.slice(0, 7)}`, `${server}/${repository}${path}${sha}`]);
  }
  if (runUrl) links.push(['run', runUrl]);
  return links;
}

/** The links an event's payload carries: commit, run, pull request, release. */
function linksOf(event: StoredEvent): [string, string][] {
  const github = isJsonObject(event.payload?.github) ? event.payload.github : {};
  const links = commitAndRun(event.payload ?? {});
  const pull = isJsonObject(github.pull_request) ? github.pull_request : {};
  const pullUrl = httpUrl(pull.url);
  if (pullUrl) links.push([`pull request #${String(pull.number ?? '')}`, pullUrl]);
  const release = isJsonObject(github.release) ? github.release : {};
  const releaseUrl = httpUrl(release.url);
  if (releaseUrl) links.push([`release ${text(release.tag) ?? ''}`.trim(), releaseUrl]);
  return links;
}

const hex = (color: number) => `#${color.toString(16).padStart(6, '0')}`;

/** An event's colour: its own when it has one, else its status's (from the stylesheet). */
function Swatch({ event }: { event: StoredEvent }) {
  const status = statusClass(statusOf(event.payload));
  return (
    <svg class="swatch" width="12" height="12" aria-hidden="true">
      {event.color === null ? (
        <circle class={`bar-${status}`} cx="6" cy="6" r="6" />
      ) : (
        <circle fill={hex(event.color)} cx="6" cy="6" r="6" />
      )}
    </svg>
  );
}

const NOTIFICATION_TEXT = {
  pending: 'Discord: sending',
  delivered: 'Discord: delivered',
  failed: 'Discord: failed',
} as const;

/** The events of the range, newest first, a page at a time (links, not scripts). */
export function Timeline({
  timeline,
  pageHref,
  first,
}: {
  timeline: EventPage;
  /** The address of another page of the timeline. */
  pageHref: (before: string | undefined) => string;
  first: boolean;
}) {
  return (
    <section class="card" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      {timeline.events.length === 0 ? (
        <p class="empty">No events in this range.</p>
      ) : (
        <ol class="timeline">
          {timeline.events.map((event) => {
            const status = statusOf(event.payload);
            const branch = branchOf(event.payload);
            const notification = event.notification;
            return (
              <li>
                <Swatch event={event} />
                <div class="event-body">
                  <p class="event-title">
                    <strong>{event.eventType}</strong>
                    {status && <span class={`pill status-${statusClass(status)}`}>{status}</span>}
                    {branch && <code class="branch">{branch}</code>}
                    <time datetime={event.created_at} class="muted">
                      {formatTime(event.created_at)}
                    </time>
                  </p>
                  {event.description && <p class="event-description">{event.description}</p>}
                  <p class="event-links">
                    {linksOf(event).map(([label, href]) => (
                      <a href={href} rel="noopener noreferrer nofollow">
                        {label}
                      </a>
                    ))}
                    {notification && (
                      <span class={`notification notification-${notification.status}`}>
                        {NOTIFICATION_TEXT[notification.status]}
                        {notification.status !== 'delivered' && notification.attempts > 0
                          ? ` (${notification.attempts} attempts${notification.lastError ? `: ${notification.lastError}` : ''})`
                          : ''}
                      </span>
                    )}
                  </p>
                </div>
              </li>
            );
          })}
        </ol>
      )}
      <nav class="pager" aria-label="Timeline pages">
        {!first && <a href={pageHref(undefined)}>Newest</a>}
        {timeline.nextCursor && <a href={pageHref(timeline.nextCursor)}>Older events</a>}
      </nav>
    </section>
  );
}
