import type { BuildSummary, SeriesBucket } from '../../contract/stats-queries.js';
import { addSeriesSum, emptySeriesSum, type SeriesSum } from './series-sum.js';
import { binOf, quantile } from './sketch.js';
import type { ReadPlan } from './time-buckets.js';

/** A cell or a single value, in the bucket of a read plan. */
export type SeriesPart = Omit<SeriesSum, 'bins'> & {
  bucket: number;
  bins: Iterable<[number, number]>;
};

const iso = (ms: number) => new Date(ms).toISOString();
const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/**
 * The non-empty buckets of a series, in time order, from its parts (cells and single values):
 * count, min, max, avg and last exact; p50 and p95 from the merged sketch (within 2 %).
 */
export function seriesBuckets(plan: ReadPlan, parts: Iterable<SeriesPart>): SeriesBucket[] {
  const sums = new Map<number, SeriesSum>();
  for (const part of parts) {
    let sum = sums.get(part.bucket);
    if (!sum) {
      sum = emptySeriesSum();
      sums.set(part.bucket, sum);
    }
    addSeriesSum(sum, part);
  }
  return plan.buckets.flatMap((bucket) => {
    const sum = sums.get(bucket.index);
    if (!sum || sum.count === 0) return [];
    return [
      {
        start: iso(bucket.start),
        end: iso(bucket.end),
        count: sum.count,
        min: sum.min,
        max: sum.max,
        avg: sum.sum / sum.count,
        // A true quantile lies between min and max: clamped, a bucket of one value is exact.
        p50: clamp(quantile(sum.bins, 0.5) as number, sum.min, sum.max),
        p95: clamp(quantile(sum.bins, 0.95) as number, sum.min, sum.max),
        last: sum.lastValue,
      },
    ];
  });
}

/**
 * The median and 95th percentile of every part together (the whole range, whatever its
 * buckets), as seriesBuckets gives each bucket's; null when there is no value.
 */
export function seriesTotal(parts: Iterable<SeriesPart>): { p50: number; p95: number } | null {
  const sum = emptySeriesSum();
  for (const part of parts) addSeriesSum(sum, part);
  if (sum.count === 0) return null;
  return {
    p50: clamp(quantile(sum.bins, 0.5) as number, sum.min, sum.max),
    p95: clamp(quantile(sum.bins, 0.95) as number, sum.min, sum.max),
  };
}

/** One raw value as a part of its bucket. */
export const valuePart = (bucket: number, t: number, value: number): SeriesPart => ({
  bucket,
  count: 1,
  min: value,
  max: value,
  sum: value,
  lastAt: t,
  lastValue: value,
  bins: [[binOf(value), 1]],
});

export interface StatusCounts {
  bucket: number;
  success: number;
  failure: number;
  cancelled: number;
  other: number;
}

/** The non-empty buckets of a build summary, and the success rate over the whole range. */
export function summaryBuckets(
  plan: ReadPlan,
  parts: Iterable<StatusCounts>,
): Pick<BuildSummary, 'buckets' | 'success_rate'> {
  const sums = new Map<number, StatusCounts>();
  for (const part of parts) {
    const sum = sums.get(part.bucket) ?? {
      bucket: part.bucket,
      success: 0,
      failure: 0,
      cancelled: 0,
      other: 0,
    };
    sum.success += part.success;
    sum.failure += part.failure;
    sum.cancelled += part.cancelled;
    sum.other += part.other;
    sums.set(part.bucket, sum);
  }
  let success = 0;
  let failure = 0;
  const buckets = plan.buckets.flatMap((bucket) => {
    const sum = sums.get(bucket.index);
    if (!sum || sum.success + sum.failure + sum.cancelled + sum.other === 0) return [];
    success += sum.success;
    failure += sum.failure;
    return [
      {
        start: iso(bucket.start),
        end: iso(bucket.end),
        success: sum.success,
        failure: sum.failure,
        cancelled: sum.cancelled,
        other: sum.other,
      },
    ];
  });
  return { buckets, success_rate: success + failure === 0 ? null : success / (success + failure) };
}
