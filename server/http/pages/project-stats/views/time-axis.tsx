import type { ViewRange } from '../../../../domain/view-ranges.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Ranges up to this long name the hour of each tick as well as its day. */
const HOURS_UP_TO = 2 * 86_400_000;
/** Ticks from the range's start to its end, evenly spaced. */
export const AXIS_TICKS = 5;

/** A tick's label, in UTC like every time on the page: "Nov 26", or "Nov 26 14:00". */
export function tickLabel(at: number, range: Pick<ViewRange, 'from' | 'to'>): string {
  const date = new Date(at);
  const day = `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}`;
  return range.to - range.from <= HOURS_UP_TO ? `${day} ${date.toISOString().slice(11, 16)}` : day;
}

/**
 * A time axis under the build-health bars, in HTML so its text is not stretched with the SVG:
 * AXIS_TICKS labels from the range's start to its end (on a small screen, every other one),
 * placed by the stylesheet (the page's CSP allows no inline style).
 */
export function TimeAxis({ range }: { range: Pick<ViewRange, 'from' | 'to'> }) {
  const step = (range.to - range.from) / (AXIS_TICKS - 1);
  return (
    <div class="time-axis" data-time-axis aria-hidden="true">
      {Array.from({ length: AXIS_TICKS }, (_, i) => {
        const at = range.from + Math.round(i * step);
        return <time datetime={new Date(at).toISOString()}>{tickLabel(at, range)}</time>;
      })}
    </div>
  );
}

/**
 * What a metric chart's lines and band are, under each chart (uPlot's own legend is off). On a
 * small screen the words in `.lg` are left to screen readers, so the legend stays one line.
 */
export function ChartLegend() {
  return (
    <ul class="chart-legend" data-chart-legend>
      <li>
        <span class="swatch swatch-p50" aria-hidden="true" />
        <span class="lg">median (</span>p50<span class="lg">)</span>
      </li>
      <li>
        <span class="swatch swatch-p95" aria-hidden="true" />
        <span class="lg">95th percentile (</span>p95<span class="lg">)</span>
      </li>
      <li>
        <span class="swatch swatch-band" aria-hidden="true" />
        min–max<span class="lg"> range</span>
      </li>
    </ul>
  );
}
