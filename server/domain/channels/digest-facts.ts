import { formatWithUnit } from '../unit-format.js';
import type { DigestSummary, DurationTrend } from './digest-summary.js';
import { successRate } from './digest-summary.js';

/** A fact line of a message (messages/message-parts.ts's Fact). */
interface Fact {
  label: string;
  value: string;
  url: string | null;
}

/** `+3`, `−2`, `±0`: a change, signed. */
const signed = (n: number, unit = ''): string =>
  n > 0 ? `+${n}${unit}` : n < 0 ? `−${-n}${unit}` : `±0${unit}`;

/**
 * The duration line: the period's median with its unit, and its change against the period
 * before's, as a value and in whole percent (`9.4 s (+1.2 s, +15 %)`).
 */
export function durationText(trend: DurationTrend): string {
  const { current, previous, unit } = trend;
  if (current === null) return 'no duration recorded';
  const now = formatWithUnit(current, unit);
  if (previous === null) return now;
  const change = current - previous;
  const size = formatWithUnit(Math.abs(change), unit);
  const sign = change > 0 ? '+' : change < 0 ? '−' : '±';
  const percent =
    previous === 0 ? '' : `, ${signed(Math.round((change / Math.abs(previous)) * 100), ' %')}`;
  return `${now} (${sign}${size}${percent})`;
}

/**
 * What a digest says: builds and their change against the period before, the success rate
 * (passed among passed and failed, whole percent) and its change in percentage points, releases
 * and deploys, the regression alerts active when it is sent, the tests that became flaky, and the median build duration
 * against the period before's (when the project has a duration key).
 */
export function digestFacts(digest: DigestSummary): Fact[] {
  const { current, previous } = digest;
  const rate = successRate(current);
  const before = successRate(previous);
  const rateText =
    rate === null
      ? 'no passed or failed build'
      : `${Math.round(rate * 100)} %${
          before === null ? '' : ` (${signed(Math.round((rate - before) * 100), ' pts')})`
        }`;
  return [
    {
      label: 'Builds',
      value: `${current.builds} (${signed(current.builds - previous.builds)})`,
      url: null,
    },
    { label: 'Success rate', value: rateText, url: null },
    { label: 'Failed', value: String(current.failed), url: null },
    { label: 'Releases', value: String(current.releases), url: null },
    { label: 'Active alerts', value: String(digest.activeAlerts), url: null },
    { label: 'New flaky tests', value: String(digest.newFlaky), url: null },
    ...(digest.duration
      ? [{ label: 'Duration (median)', value: durationText(digest.duration), url: null }]
      : []),
  ];
}
