import type { ProjectView } from '../../../../services/project-view-service.js';
import { CsvLink } from './csv-link.js';
import { formatNumber } from './format.js';
import { formatRate, SortHeader } from './sortable.js';

/**
 * The range's events by type: runs, success rate and outcomes, sortable (the page's script sorts
 * by a column's button; without it, the order is by runs). A type's name filters the page to it.
 */
export function EventTypeTable({
  view,
  hrefOf,
  csv,
}: {
  view: ProjectView;
  /** The table as CSV (owner pages). */
  csv?: string | undefined;
  /** The page filtered to one event type (undefined: all). */
  hrefOf: (eventType: string | undefined) => string;
}) {
  const { rows, more } = view.eventTypes;
  if (rows.length === 0) return null;
  const sorted = [...rows].sort((a, b) => b.runs - a.runs || (a.eventType < b.eventType ? -1 : 1));
  return (
    <section class="card table-wrap" aria-labelledby="by-type-title">
      <h2 id="by-type-title">By event type</h2>
      {view.eventType !== undefined && (
        <p class="filter-note">
          Showing <code>{view.eventType}</code> only (builds, headline, timeline).{' '}
          <a href={hrefOf(undefined)}>Show every type</a>
        </p>
      )}
      <table class="sortable" data-sortable>
        <caption class="sr-only">
          Events by type over the range; a type's link filters the page
        </caption>
        <thead>
          <tr>
            <SortHeader name="Event type" kind="text" />
            <SortHeader name="Runs" kind="number" sort="descending" />
            <SortHeader name="Success rate" kind="number" />
            <SortHeader name="Success" kind="number" />
            <SortHeader name="Failure" kind="number" />
            <SortHeader name="Cancelled" kind="number" />
            <SortHeader name="Other" kind="number" />
          </tr>
        </thead>
        <tbody>
          {sorted.map((row) => (
            <tr
              data-event-type={row.eventType}
              aria-current={view.eventType === row.eventType ? 'true' : undefined}
            >
              <td data-value={row.eventType}>
                <a href={hrefOf(row.eventType)}>
                  <code>{row.eventType}</code>
                </a>
              </td>
              <td data-value={row.runs}>{formatNumber(row.runs)}</td>
              <td data-value={row.successRate ?? -1}>{formatRate(row.successRate)}</td>
              <td data-value={row.success}>{formatNumber(row.success)}</td>
              <td data-value={row.failure}>{formatNumber(row.failure)}</td>
              <td data-value={row.cancelled}>{formatNumber(row.cancelled)}</td>
              <td data-value={row.other}>{formatNumber(row.other)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {more && (
        <p class="hint">More event types than shown: the first 30 in name order are listed.</p>
      )}
      <p class="hint">
        <CsvLink href={csv} what="the table by event type" /> Success rate: success ÷ (success +
        failure), as in build health.
      </p>
    </section>
  );
}
