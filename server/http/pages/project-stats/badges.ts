import { makeBadge } from 'badge-maker';
import { formatWithUnit } from '../../../domain/unit-format.js';

/** Colours of the common badges (shields.io's names). */
const STATUS_COLOURS: Record<string, string> = {
  success: 'brightgreen',
  failure: 'red',
  cancelled: 'lightgrey',
};

/** The longest label a badge's `?label=` may set. */
export const MAX_BADGE_LABEL = 64;

/** The status badge: the latest status, or "unknown" when no event has one, after its label. */
export function statusBadge(status: string | null, label: string): string {
  return makeBadge({
    label,
    message: status ?? 'unknown',
    color: status === null ? 'lightgrey' : (STATUS_COLOURS[status] ?? 'blue'),
    style: 'flat',
  });
}

/** A metric's latest value with its series' unit (`1.2 s`, `532 kB`), or "no data". */
export function metricBadge(key: string, value: number | undefined, unit: string | null): string {
  return makeBadge({
    label: key,
    message: value === undefined ? 'no data' : formatWithUnit(value, unit),
    color: value === undefined ? 'lightgrey' : 'blue',
    style: 'flat',
  });
}
