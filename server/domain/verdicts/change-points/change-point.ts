/** A change of level in a series, as E-Divisive Means finds it. */
export interface ChangePoint {
  /** Index in the series (0 = its first value) of the first value of the new level. */
  index: number;
  /** Mean of the values from the previous change point (or the series' start) up to index − 1. */
  before_mean: number;
  /** Mean of the values from index up to the next change point (or the latest value). */
  after_mean: number;
  /** after_mean / before_mean − 1; null when before_mean is 0. */
  change: number | null;
  /** The split's significance when it was found (Kolmogorov–Smirnov, Bonferroni-corrected), at most options.p_value. */
  p_value: number;
}

export interface ChangePointOptions {
  /** A split is a change point when its p-value is at most this. Default 0.01. */
  p_value?: number;
  /** The fewest values each side of a split needs. Default 3 (at least 2). */
  min_segment?: number;
  /** The most values one incremental detection analyses (at least 4 · min_segment). Default 500. */
  window?: number;
  /** A change point is settled (never revised) once this many values follow it. Default 30. */
  settle_after?: number;
}
