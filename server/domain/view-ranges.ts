/**
 * The time ranges of the project statistics page. Each preset ends at the next whole bucket after
 * now and cuts into buckets of whole minutes, so every bucket is read from whole cells (fast) and
 * the newest bucket holds "now".
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const RANGE_PRESETS = {
  '24h': { label: '24 hours', span: DAY, bucket: 15 * MINUTE },
  '7d': { label: '7 days', span: 7 * DAY, bucket: 2 * HOUR },
  '30d': { label: '30 days', span: 30 * DAY, bucket: 6 * HOUR },
  '90d': { label: '90 days', span: 90 * DAY, bucket: DAY },
} as const;
export type RangePreset = keyof typeof RANGE_PRESETS;
export const DEFAULT_PRESET: RangePreset = '30d';

/** Bucket widths a custom range may use: the smallest that keeps it to at most 200 buckets. */
const CUSTOM_WIDTHS = [15 * MINUTE, HOUR, 2 * HOUR, 6 * HOUR, DAY, 7 * DAY, 30 * DAY];
const MAX_BUCKETS = 200;

export interface ViewRange {
  preset: RangePreset | 'custom';
  from: number;
  to: number;
  buckets: number;
  /** The width of a bucket, ms. */
  width: number;
}

export function presetRange(preset: RangePreset, now = Date.now()): ViewRange {
  const { span, bucket } = RANGE_PRESETS[preset];
  const to = Math.floor(now / bucket) * bucket + bucket;
  return { preset, from: to - span, to, buckets: span / bucket, width: bucket };
}

/** A custom range of whole UTC days, `first` to `last` inclusive (YYYY-MM-DD). */
export function customRange(first: string, last: string): ViewRange | undefined {
  const day = /^\d{4}-\d\d-\d\d$/;
  if (!day.test(first) || !day.test(last)) return undefined;
  const from = Date.parse(`${first}T00:00:00Z`);
  const to = Date.parse(`${last}T00:00:00Z`) + DAY;
  if (Number.isNaN(from) || Number.isNaN(to) || to <= from || to - from > 5 * 366 * DAY) {
    return undefined;
  }
  const width =
    CUSTOM_WIDTHS.find((w) => (to - from) / w <= MAX_BUCKETS) ?? (CUSTOM_WIDTHS.at(-1) as number);
  // Whole buckets: the last one may run past the last day.
  const buckets = Math.ceil((to - from) / width);
  return { preset: 'custom', from, to: from + buckets * width, buckets, width };
}

/**
 * The range as one workflow's figures read it: whole hours, since its cells are hours (the
 * 24-hour preset's 15-minute buckets become 24 of an hour, ending at the next whole hour; a
 * custom range of whole days keeps its days in hour buckets). Wider buckets are whole hours
 * already.
 */
export function hourlyRange(range: ViewRange): ViewRange {
  if (range.width >= HOUR) return range;
  const span = range.to - range.from;
  const to = Math.ceil(range.to / HOUR) * HOUR;
  const from = range.preset === 'custom' ? range.from : to - span;
  const buckets = Math.ceil((to - from) / HOUR);
  return { ...range, from, to: from + buckets * HOUR, buckets, width: HOUR };
}
