import type { ProjectSummary, SummaryDay } from '../../../../../contract/summaries.js';
import { formatFigure, unitOf } from '../../../../domain/unit-format.js';
import { SimpleTable } from './simple-table.js';
import { StatusPill } from './status-pill.js';

const WIDTH = 96;
const HEIGHT = 24;

const percent = (rate: number) => `${(rate * 100).toFixed(1)} %`;
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * The week as a line, one point a day (days without a value left out): the median duration when
 * the project has one, else the success rate. Drawn on the server, no script.
 */
function Sparkline({ summary }: { summary: ProjectSummary }) {
  const byDuration = summary.duration_key !== null;
  const figureOf = (day: SummaryDay) => (byDuration ? day.median_duration : day.success_rate);
  const points = summary.days.flatMap((day, i) => {
    const value = figureOf(day);
    return value === null ? [] : [[i, value] as const];
  });
  if (points.length === 0) return <span class="muted">–</span>;
  const values = points.map(([, v]) => v);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const x = (i: number) => ((i / (summary.days.length - 1)) * (WIDTH - 4) + 2).toFixed(1);
  const y = (v: number) =>
    (high === low ? HEIGHT / 2 : HEIGHT - 2 - ((v - low) / (high - low)) * (HEIGHT - 4)).toFixed(1);
  const label = byDuration
    ? `Median ${summary.duration_key} per day over 7 days`
    : 'Success rate per day over 7 days';
  return (
    <svg
      class="sparkline"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={label}
    >
      <polyline
        fill="none"
        stroke="currentColor"
        stroke-width="1.5"
        points={points.map(([i, v]) => `${x(i)},${y(v)}`).join(' ')}
      />
    </svg>
  );
}

/** The overview's projects, the one needing attention first (GET /stats/get-project-summaries). */
export function ProjectSummariesTable({ summaries }: { summaries: ProjectSummary[] }) {
  return (
    <SimpleTable
      columns={['Project', 'Latest', 'Success (7 days)', 'Median duration', 'Trend', 'Needs']}
      empty="No projects yet."
    >
      {summaries.map((summary) => (
        <tr class="summary-row">
          <td>
            <a href={`/dashboard/projects/${encodeURIComponent(summary.id)}`}>{summary.name}</a>
          </td>
          <td>
            {summary.latest ? (
              <span>
                <StatusPill status={summary.latest.status} />{' '}
                <code>{summary.latest.event_type}</code>
              </span>
            ) : (
              <span class="muted">No builds</span>
            )}
          </td>
          <td>
            {summary.success_rate === null ? (
              <span class="muted">–</span>
            ) : (
              <span>
                {percent(summary.success_rate)}{' '}
                <span class="muted">
                  ({summary.success} of {summary.success + summary.failure})
                </span>
              </span>
            )}
          </td>
          <td>
            {summary.median_duration === null || summary.duration_key === null
              ? '–'
              : formatFigure(summary.median_duration, unitOf(summary.duration_key, null))}
          </td>
          <td class="sparkline-cell">
            <Sparkline summary={summary} />
          </td>
          <td>
            {summary.active_alerts > 0 && (
              <span class="pill bad">{plural(summary.active_alerts, 'active alert')}</span>
            )}{' '}
            {summary.flaky_tests > 0 && (
              <span class="pill">{plural(summary.flaky_tests, 'flaky test')}</span>
            )}
            {summary.active_alerts === 0 && summary.flaky_tests === 0 && (
              <span class="muted">–</span>
            )}
          </td>
        </tr>
      ))}
    </SimpleTable>
  );
}
