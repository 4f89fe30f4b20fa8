import type { Boundaries, SidedLimits } from './sided.js';

/** `static`: the boundaries are the limits; no baseline. */
export function staticLimits(boundaries: Boundaries): SidedLimits {
  return { baseline: null, lower_limit: boundaries.lower, upper_limit: boundaries.upper };
}
