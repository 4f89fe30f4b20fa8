import type { BuildSummary } from '../../../../../contract/stats-queries.js';
import type { ViewRange } from '../../../../domain/view-ranges.js';
import type { ChartMark } from '../../../../services/project-page/chart-marks.js';
import { CsvLink } from './csv-link.js';
import { formatTime } from './format.js';
import { TimeAxis } from './time-axis.js';

const STATUSES = ['success', 'failure', 'cancelled', 'other'] as const;
const WIDTH = 720;
const HEIGHT = 120;

/**
 * Build health without JavaScript: the success rate, and one stacked bar per bucket by status,
 * drawn as SVG on the server (colours from the stylesheet, so dark mode follows the system).
 */
export function BuildHealth({
  summary,
  range,
  marks,
  csv,
}: {
  /** The bars' CSV (one row per bucket). */
  csv?: string | undefined;
  summary: BuildSummary;
  range: ViewRange;
  /** Releases and deploys are drawn over the bars (alerts belong to their series' chart). */
  marks: ChartMark[];
}) {
  const totals = { success: 0, failure: 0, cancelled: 0, other: 0 };
  for (const bucket of summary.buckets) {
    for (const status of STATUSES) totals[status] += bucket[status];
  }
  const highest = Math.max(
    1,
    ...summary.buckets.map((b) => b.success + b.failure + b.cancelled + b.other),
  );
  const slot = WIDTH / range.buckets;
  const rate = summary.success_rate;
  return (
    <section class="card" aria-labelledby="health-title">
      <div class="health-head">
        <h2 id="health-title">Build health</h2>
        <p class="health-rate">
          <span class="stat-value">{rate === null ? '–' : `${(rate * 100).toFixed(1)} %`}</span>
          <span class="stat-label">success rate</span>
        </p>
      </div>
      <svg
        class="health-bars"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Events by status: ${totals.success} success, ${totals.failure} failure, ${totals.cancelled} cancelled, ${totals.other} other`}
      >
        {summary.buckets.map((bucket) => {
          const index = Math.round((Date.parse(bucket.start) - range.from) / range.width);
          let top = HEIGHT;
          return (
            <g>
              <title>
                {`${formatTime(bucket.start)}: ${bucket.success} success, ${bucket.failure} failure, ${bucket.cancelled} cancelled, ${bucket.other} other`}
              </title>
              {STATUSES.map((status) => {
                const height = (bucket[status] / highest) * (HEIGHT - 4);
                top -= height;
                return height > 0 ? (
                  <rect
                    class={`bar-${status}`}
                    x={(index * slot + slot * 0.1).toFixed(2)}
                    y={top.toFixed(2)}
                    width={(slot * 0.8).toFixed(2)}
                    height={height.toFixed(2)}
                  />
                ) : null;
              })}
            </g>
          );
        })}
        {marks
          .filter((mark) => mark.key === null)
          .map((mark) => {
            const x = (((mark.at - range.from) / (range.to - range.from)) * WIDTH).toFixed(2);
            return (
              <g class={`health-mark mark-${mark.kind}`} data-at={mark.at}>
                <title>
                  {`${mark.label} · ${formatTime(new Date(mark.at).toISOString())}${mark.commit ? ` · commit ${mark.commit}` : ''}`}
                </title>
                <line x1={x} x2={x} y1="0" y2={HEIGHT} />
              </g>
            );
          })}
      </svg>
      <TimeAxis range={range} />
      <p class="hint">
        Success rate: successes divided by successes and failures; cancelled and skipped runs are
        not failures.
      </p>
      <ul class="health-legend">
        {STATUSES.map((status) => (
          <li>
            <svg width="10" height="10" aria-hidden="true">
              <rect class={`bar-${status}`} width="10" height="10" rx="2" />
            </svg>
            {status} <strong>{totals[status]}</strong>
          </li>
        ))}
      </ul>
      {csv !== undefined && (
        <p class="hint">
          <CsvLink href={csv} what="the build-health bars" />
        </p>
      )}
    </section>
  );
}
