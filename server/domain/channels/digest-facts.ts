import type { DigestSummary } from './digest-summary.js';
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
 * What a digest says: builds and their change against the period before, the success rate
 * (passed among passed and failed, whole percent) and its change in percentage points, releases
 * and deploys, and the regression alerts active when it is sent.
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
  ];
}
