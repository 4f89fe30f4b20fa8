import { addBins, type Bins, binOf } from './sketch.js';

/** A series' values over some span: exact count, min, max, sum and last, and the sketch's bins. */
export interface SeriesSum {
  count: number;
  min: number;
  max: number;
  sum: number;
  lastAt: number;
  lastValue: number;
  /**
   * The storage position of the last value's record, where storage order and commit order can
   * differ (PostgreSQL): on equal times the higher position is the later record, whatever the
   * order the sums are added in. Unset (SQLite): the one added later is.
   */
  lastSeq?: number;
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

/** Whether a value at (t, seq) comes after `into`'s last one (see lastSeq). */
const isLater = (into: SeriesSum, t: number, seq: number | undefined) =>
  t > into.lastAt ||
  (t === into.lastAt && (seq === undefined || into.lastSeq === undefined || seq >= into.lastSeq));

/**
 * Adds another sum (a cell, a stored cell) into `into`. Sums are added in storage order, so on
 * equal times the one added later is the later record and its value becomes the last (unless
 * both know their records' positions: then the higher one's).
 */
export function addSeriesSum(
  into: SeriesSum,
  from: Omit<SeriesSum, 'bins'> & { bins?: Iterable<[number, number]> },
): void {
  into.count += from.count;
  into.min = Math.min(into.min, from.min);
  into.max = Math.max(into.max, from.max);
  into.sum += from.sum;
  if (isLater(into, from.lastAt, from.lastSeq)) {
    into.lastAt = from.lastAt;
    into.lastValue = from.lastValue;
    if (from.lastSeq !== undefined) into.lastSeq = from.lastSeq;
  }
  if (from.bins) addBins(into.bins, from.bins);
}

/**
 * Adds one value made at time `t` (its sketch bin may be given, when known already; `seq`, its
 * record's storage position, where commit order may differ from it).
 */
export function addSeriesValue(
  into: SeriesSum,
  t: number,
  value: number,
  bin = binOf(value),
  seq?: number,
): void {
  into.count += 1;
  into.min = Math.min(into.min, value);
  into.max = Math.max(into.max, value);
  into.sum += value;
  if (isLater(into, t, seq)) {
    into.lastAt = t;
    into.lastValue = value;
    if (seq !== undefined) into.lastSeq = seq;
  }
  into.bins.set(bin, (into.bins.get(bin) ?? 0) + 1);
}
