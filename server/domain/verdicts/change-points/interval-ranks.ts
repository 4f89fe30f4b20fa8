/**
 * The ranks of the values of one interval, computed once and shared by the energy statistic (its
 * Fenwick trees are indexed by rank) and the significance test (its empirical distributions).
 */
export interface IntervalRanks {
  /** The interval's values minus its first one (sums then stay near the spread's size). */
  values: Float64Array;
  /** 1-based position in ascending order of each value's first equal: equal values share it. */
  slot: Int32Array;
}

/** Index of the first element ≥ x in an ascending array. */
function lowerBound(sorted: Float64Array, x: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as number) < x) low = middle + 1;
    else high = middle;
  }
  return low;
}

export function intervalRanks(
  series: readonly number[],
  start: number,
  end: number,
): IntervalRanks {
  const length = end - start;
  const origin = series[start] as number;
  const values = new Float64Array(length);
  for (let i = 0; i < length; i++) values[i] = (series[start + i] as number) - origin;
  // A typed array sorts numerically without a comparator: several times faster than sorting
  // indices by value, and the binary searches that find each value's slot are cheap.
  const sorted = Float64Array.from(values).sort();
  const slot = new Int32Array(length);
  for (let i = 0; i < length; i++) slot[i] = lowerBound(sorted, values[i] as number) + 1;
  return { values, slot };
}
