import type { ThresholdModel } from './threshold-model.js';

/** What a test makes of a baseline sample. */
export interface Limits {
  /** The test's centre: the mean, the median (IQR tests), exp(location) (log-normal); null for static. */
  baseline: number | null;
  /** Values below this are beyond the lower limit; null: no lower boundary. */
  lower_limit: number | null;
  /** Values above this are beyond the upper limit; null: no upper boundary. */
  upper_limit: number | null;
  /** How many baseline values the limits come from (after max_sample_size). */
  sample_size: number;
}

/** Why a sample gives no limits. */
export type NoLimitsReason =
  /** Fewer values than min_sample_size, or than the test needs (2 for delta_iqr). */
  | 'too-few-values'
  /** The variance tests on a sample without spread (every value equal). */
  | 'no-spread'
  /** log_normal on a sample with a value ≤ 0 (no logarithm). */
  | 'non-positive-values'
  /** A value that is not a finite number, or a centre or limit that overflows. */
  | 'non-finite';

export type LimitsResult = { limits: Limits } | { reason: NoLimitsReason };

/** The limits, or why there are none. `sample`: baseline values, oldest first, already cut by window_seconds. */
export function limitsOrReason(_model: ThresholdModel, _sample: readonly number[]): LimitsResult {
  throw new Error('not implemented yet');
}

/** sample: the baseline values oldest first (already cut by window_seconds by the caller). undefined = no verdict possible. */
export function computeLimits(
  model: ThresholdModel,
  sample: readonly number[],
): Limits | undefined {
  const result = limitsOrReason(model, sample);
  return 'limits' in result ? result.limits : undefined;
}
