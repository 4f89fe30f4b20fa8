import { addBins, type Bins, binOf } from './sketch.js';

/** A series' values over some span: exact count, min, max, sum and last, and the sketch's bins. */
export interface SeriesSum {
  count: number;
  min: number;
  max: number;
  sum: number;
  lastAt: number;
  lastValue: number;
  bins: Bins;
}

export const emptySeriesSum = (): SeriesSum => ({
  count: 0,
  min: Number.POSITIVE_INFINITY,
  max: Number.NEGATIVE_INFINITY,
  sum: 0,
  lastAt: Number.NEGATIVE_INFINITY,
  lastValue: 0,
  bins: new Map(),
});

/**
 * Adds another sum (a cell, a stored cell) into `into`. Sums are added in storage order, so on
 * equal times the one added later is the later record and its value becomes the last.
 */
export function addSeriesSum(
  into: SeriesSum,
  from: Omit<SeriesSum, 'bins'> & { bins?: Iterable<[number, number]> },
): void {
  into.count += from.count;
  into.min = Math.min(into.min, from.min);
  into.max = Math.max(into.max, from.max);
  into.sum += from.sum;
  if (from.lastAt >= into.lastAt) {
    into.lastAt = from.lastAt;
    into.lastValue = from.lastValue;
  }
  if (from.bins) addBins(into.bins, from.bins);
}

/** Adds one value made at time `t` (its sketch bin may be given, when known already). */
export function addSeriesValue(
  into: SeriesSum,
  t: number,
  value: number,
  bin = binOf(value),
): void {
  into.count += 1;
  into.min = Math.min(into.min, value);
  into.max = Math.max(into.max, value);
  into.sum += value;
  if (t >= into.lastAt) {
    into.lastAt = t;
    into.lastValue = value;
  }
  into.bins.set(bin, (into.bins.get(bin) ?? 0) + 1);
}
