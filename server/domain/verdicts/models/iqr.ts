import { quartiles } from '../sample-statistics.js';
import { around, type Boundaries, type SidedLimits } from './sided.js';

/**
 * `iqr`: median ± b·(Q3 − Q1), quartiles by linear interpolation. Without spread (Q3 = Q1) both
 * limits are the median: any other value is beyond them, which is what a deterministic series
 * (a bundle's size) wants.
 */
export function iqrLimits(sample: readonly number[], boundaries: Boundaries): SidedLimits {
  const { q1, median, q3 } = quartiles(sample);
  return around(median, boundaries, (b) => b * (q3 - q1));
}
