/** What every test computes: a centre and a limit on each side that has a boundary. */

/** The model's two boundaries; null: that side has no limit. */
export interface Boundaries {
  lower: number | null;
  upper: number | null;
}

export interface SidedLimits {
  baseline: number | null;
  lower_limit: number | null;
  upper_limit: number | null;
}

/** Why a sample gives no limits (see limits.ts). */
export type NoLimitsReason = 'too-few-values' | 'no-spread' | 'non-positive-values' | 'non-finite';

export type TestOutcome = SidedLimits | NoLimitsReason;

/** baseline − distance(lower boundary) and baseline + distance(upper boundary), each side if set. */
export function around(
  baseline: number,
  boundaries: Boundaries,
  distance: (boundary: number) => number,
): SidedLimits {
  return {
    baseline,
    lower_limit: boundaries.lower === null ? null : baseline - distance(boundaries.lower),
    upper_limit: boundaries.upper === null ? null : baseline + distance(boundaries.upper),
  };
}
