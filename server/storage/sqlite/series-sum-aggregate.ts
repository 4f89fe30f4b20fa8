import type Database from 'better-sqlite3';
import { emptySeriesSum, type SeriesSum } from '../../domain/series-sum.js';
import { decodeBins } from '../../domain/sketch.js';

/** count, min, max, sum, last_at, last_value: the float64s before the bins in a packed sum. */
const HEAD = 6;

/**
 * `series_sum(count, min, max, sum, last_at, last_value, bins)`: a span's series cells added up
 * while SQLite scans them, as addSeriesSum adds them (on equal times the row scanned later is the
 * last value; rows come in key order, so by start), packed in one blob, or NULL over no row.
 * A 30-day chart reads 720 hour cells a key: one row a span instead of one JavaScript object
 * and one bins array a cell took the project page at 1 M records from 100–116 ms to 62–71 ms
 * (issue 28; docs/decisions.md).
 */
export function registerSeriesSum(db: Database.Database): void {
  db.aggregate<SeriesSum>('series_sum', {
    start: () => emptySeriesSum(),
    // Its parameters declared one by one: better-sqlite3 takes the function's arity from them
    // (its types know of one value a row only).
    step: addCell as unknown as (into: SeriesSum) => SeriesSum,
    result: (sum: SeriesSum) => (sum.count === 0 ? null : packSeriesSum(sum)),
  });
}

/** One stored cell's columns added into a span's sum. */
function addCell(
  into: SeriesSum,
  count: number,
  min: number,
  max: number,
  sum: number,
  lastAt: number,
  lastValue: number,
  bins: Uint8Array,
): SeriesSum {
  into.count += count;
  if (min < into.min) into.min = min;
  if (max > into.max) into.max = max;
  into.sum += sum;
  if (lastAt >= into.lastAt) {
    into.lastAt = lastAt;
    into.lastValue = lastValue;
  }
  const view = new DataView(bins.buffer, bins.byteOffset, bins.byteLength);
  for (let at = 0; at + 16 <= bins.byteLength; at += 16) {
    const bin = view.getFloat64(at, true);
    into.bins.set(bin, (into.bins.get(bin) ?? 0) + view.getFloat64(at + 8, true));
  }
  return into;
}

/** Little-endian float64s: the head's six, then the bins' [bin, count] pairs. */
function packSeriesSum(sum: SeriesSum): Buffer {
  const bytes = Buffer.alloc((HEAD + 2 * sum.bins.size) * 8);
  const head = [sum.count, sum.min, sum.max, sum.sum, sum.lastAt, sum.lastValue];
  head.forEach((value, i) => {
    bytes.writeDoubleLE(value, i * 8);
  });
  let at = HEAD * 8;
  for (const [bin, count] of sum.bins) {
    bytes.writeDoubleLE(bin, at);
    bytes.writeDoubleLE(count, at + 8);
    at += 16;
  }
  return bytes;
}

/** A packed sum back as a cell's figures and bins. */
export function unpackSeriesSum(bytes: Buffer): Omit<SeriesSum, 'bins'> & {
  bins: [number, number][];
} {
  return {
    count: bytes.readDoubleLE(0),
    min: bytes.readDoubleLE(8),
    max: bytes.readDoubleLE(16),
    sum: bytes.readDoubleLE(24),
    lastAt: bytes.readDoubleLE(32),
    lastValue: bytes.readDoubleLE(40),
    bins: decodeBins(bytes.subarray(HEAD * 8)),
  };
}
