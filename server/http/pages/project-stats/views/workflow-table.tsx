import { formatFigure } from '../../../../domain/unit-format.js';
import type { ProjectView } from '../../../../services/project-view-service.js';
import { CsvLink } from './csv-link.js';
import { formatNumber } from './format.js';
import { formatRate, SortHeader } from './sortable.js';

/**
 * The range's runs by workflow (GitHub) or CI job (other CIs): runs, success rate, success,
 * failure and the median build duration, sortable by the page's script (without it: by runs).
 * A workflow's name filters the page's timeline to it (`?workflow=`), shown and removable here.
 */
export function WorkflowTableCard({
  view,
  csv,
  hrefOf,
}: {
  view: ProjectView;
  csv?: string | undefined;
  /** The page filtered to one workflow (undefined: all). */
  hrefOf: (workflow: string | undefined) => string;
}) {
  const { rows } = view.workflows;
  if (rows.length === 0) return null;
  const unit = view.headline.duration_p50.unit;
  const duration = (value: number | null) => (value === null ? '–' : formatFigure(value, unit));
  return (
    <section class="card table-wrap" aria-labelledby="by-workflow-title">
      <h2 id="by-workflow-title">By workflow or CI job</h2>
      {view.workflow !== undefined && (
        <p class="filter-note" data-workflow-filter>
          Showing <code>{view.workflow}</code> only (headline, build health, charts, timeline).{' '}
          <a href={hrefOf(undefined)}>Show every workflow</a>
        </p>
      )}
      <table class="sortable" data-sortable data-workflow-table>
        <caption class="sr-only">
          Runs by workflow or CI job over the range; a workflow's link filters the page to it
        </caption>
        <thead>
          <tr>
            <SortHeader name="Workflow or job" kind="text" />
            <SortHeader name="Runs" kind="number" sort="descending" />
            <SortHeader name="Success rate" kind="number" />
            <SortHeader name="Success" kind="number" />
            <SortHeader name="Failure" kind="number" />
            <SortHeader name="Median duration" kind="number" />
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              data-workflow={row.workflow}
              aria-current={view.workflow === row.workflow ? 'true' : undefined}
            >
              <td data-value={row.workflow}>
                <a href={hrefOf(row.workflow)}>
                  <code>{row.workflow}</code>
                </a>
              </td>
              <td data-value={row.runs}>{formatNumber(row.runs)}</td>
              <td data-value={row.successRate ?? -1}>{formatRate(row.successRate)}</td>
              <td data-value={row.success}>{formatNumber(row.success)}</td>
              <td data-value={row.failure}>{formatNumber(row.failure)}</td>
              <td data-value={row.durationP50 ?? -1}>{duration(row.durationP50)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">
        <CsvLink href={csv} what="the table by workflow" /> The workflow is the Action's{' '}
        <code>github.workflow</code>, else the CLI's <code>ci.job</code>; the duration is the
        build-duration key's median.
      </p>
    </section>
  );
}
