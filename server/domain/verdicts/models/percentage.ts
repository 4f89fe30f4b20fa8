import { mean } from '../sample-statistics.js';
import { around, type Boundaries, type SidedLimits } from './sided.js';

/**
 * `percentage`: mean·(1 − b) and mean·(1 + b), b a fraction (0.1 = 10 %). On a negative mean the
 * distance is taken from |mean|, so the lower limit stays below the upper one.
 */
export function percentageLimits(sample: readonly number[], boundaries: Boundaries): SidedLimits {
  const centre = mean(sample);
  return around(centre, boundaries, (b) => Math.abs(centre) * b);
}
