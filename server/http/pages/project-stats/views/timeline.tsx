import type { EventPage, StoredEvent } from '../../../../../contract/readback.js';
import { branchOf, statusClass, statusOf } from '../../../../domain/record-facts.js';
import { MAX_WORKFLOW_RECORDS } from '../../../../services/project-page/workflow-table.js';
import { CsvLink } from './csv-link.js';
import { linksOf } from './event-links.js';
import { formatTime } from './format.js';

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
  workflow,
  csv,
}: {
  /** The CSV of the timeline's page shown. */
  csv?: string | undefined;
  timeline: EventPage;
  /** The workflow or CI job the timeline is filtered to (`?workflow=`). */
  workflow?: string | undefined;
  /** The address of another page of the timeline. */
  pageHref: (before: string | undefined) => string;
  first: boolean;
}) {
  return (
    <section class="card" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      {workflow !== undefined && (
        <p class="filter-note">
          Events of <code>{workflow}</code> only, read from at most{' '}
          {MAX_WORKFLOW_RECORDS.toLocaleString('en')} events a page: a page may hold fewer than 20,
          and Older events goes on.
        </p>
      )}
      {timeline.events.length === 0 ? (
        <p class="empty">No events in this range.</p>
      ) : (
        <ol class="timeline">
          {timeline.events.map((event) => {
            const status = statusOf(event.payload);
            const branch = branchOf(event.payload);
            const notification = event.notification;
            const source = linksOf(event);
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
                    {source.commit && <code class="commit">{source.commit}</code>}
                    {source.links.map(([label, href]) => (
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
        {timeline.events.length > 0 && <CsvLink href={csv} what="these events" />}
      </nav>
    </section>
  );
}
