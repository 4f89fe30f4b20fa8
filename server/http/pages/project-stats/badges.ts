import { makeBadge } from 'badge-maker';

/** Colours of the common badges (shields.io's names). */
const STATUS_COLOURS: Record<string, string> = {
  success: 'brightgreen',
  failure: 'red',
  cancelled: 'lightgrey',
};

/** The status badge: the latest status, or "unknown" when no event has one. */
export function statusBadge(status: string | null): string {
  return makeBadge({
    label: 'build',
    message: status ?? 'unknown',
    color: status === null ? 'lightgrey' : (STATUS_COLOURS[status] ?? 'blue'),
    style: 'flat',
  });
}

/** A metric's latest value, or "no data". */
export function metricBadge(key: string, value: number | undefined): string {
  return makeBadge({
    label: key,
    message:
      value === undefined ? 'no data' : value.toLocaleString('en', { maximumSignificantDigits: 6 }),
    color: value === undefined ? 'lightgrey' : 'blue',
    style: 'flat',
  });
}
