import type { ChangePoint, ChangePointOptions } from './change-point.js';

/**
 * Every change point of a whole series (oldest first): divisive bisection maximising the energy
 * statistic q̂, each split kept when significant. O(n log n) per level of bisection.
 */
export function detectChangePoints(
  _values: readonly number[],
  _options: ChangePointOptions = {},
): ChangePoint[] {
  throw new Error('not implemented yet');
}
