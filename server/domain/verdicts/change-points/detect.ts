import type { ChangePoint, ChangePointOptions } from './change-point.js';
import { type Division, divide } from './divisive.js';
import { resolveOptions } from './options.js';

/** What precedes series[start] on its level (values no longer held), so its mean stays exact. */
export interface Carried {
  count: number;
  sum: number;
}

/**
 * The mean of each level of series[start, end) cut at the division indices (the first level also
 * holds the carried values).
 */
export function levelMeans(
  series: readonly number[],
  start: number,
  end: number,
  divisions: readonly Division[],
  carried: Carried = { count: 0, sum: 0 },
): number[] {
  const edges = [start, ...divisions.map((d) => d.index), end];
  return edges.slice(0, -1).map((from, level) => {
    const to = edges[level + 1] as number;
    let sum = level === 0 ? carried.sum : 0;
    for (let i = from; i < to; i++) sum += series[i] as number;
    return sum / (to - from + (level === 0 ? carried.count : 0));
  });
}

export function changePoint(
  division: Division,
  before_mean: number,
  after_mean: number,
  offset = 0,
): ChangePoint {
  return {
    index: offset + division.index,
    before_mean,
    after_mean,
    change: before_mean === 0 ? null : after_mean / before_mean - 1,
    p_value: division.p_value,
  };
}

/** Change points with the means of the levels between them (the last level runs to `end`). */
export function describeDivisions(
  series: readonly number[],
  start: number,
  end: number,
  divisions: readonly Division[],
  carried?: Carried,
): ChangePoint[] {
  const means = levelMeans(series, start, end, divisions, carried);
  return divisions.map((division, i) =>
    changePoint(division, means[i] as number, means[i + 1] as number),
  );
}

/**
 * Every change point of a whole series (oldest first): divisive bisection maximising the energy
 * statistic q̂, each split kept when significant. O(n log n) per level of bisection.
 */
export function detectChangePoints(
  values: readonly number[],
  options: ChangePointOptions = {},
): ChangePoint[] {
  const resolved = resolveOptions(options);
  return describeDivisions(values, 0, values.length, divide(values, 0, values.length, resolved));
}
