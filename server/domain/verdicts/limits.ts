import { deltaIqrLimits } from './models/delta-iqr.js';
import { iqrLimits } from './models/iqr.js';
import { logNormalLimits } from './models/log-normal.js';
import { tTestLimits, zScoreLimits } from './models/normal.js';
import { percentageLimits } from './models/percentage.js';
import type { Boundaries, NoLimitsReason, TestOutcome } from './models/sided.js';
import { staticLimits } from './models/static.js';
import {
  MAX_SAMPLE_SIZE_DEFAULT,
  minSampleSizeDefault,
  type ThresholdModel,
  type ThresholdTest,
} from './threshold-model.js';

export type { NoLimitsReason } from './models/sided.js';

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

export type LimitsResult = { limits: Limits } | { reason: NoLimitsReason };

const TESTS: Record<ThresholdTest, (sample: readonly number[], b: Boundaries) => TestOutcome> = {
  static: (_sample, boundaries) => staticLimits(boundaries),
  percentage: percentageLimits,
  z_score: zScoreLimits,
  t_test: tTestLimits,
  log_normal: logNormalLimits,
  iqr: iqrLimits,
  delta_iqr: deltaIqrLimits,
};

const finiteOrNull = (value: number | null) => value === null || Number.isFinite(value);

/**
 * The limits, or why there are none. `sample`: baseline values, oldest first, already cut by
 * window_seconds; only the newest max_sample_size are used, and fewer than min_sample_size give
 * no limits.
 */
export function limitsOrReason(model: ThresholdModel, sample: readonly number[]): LimitsResult {
  const max = model.max_sample_size ?? MAX_SAMPLE_SIZE_DEFAULT;
  const used = sample.length > max ? sample.slice(sample.length - max) : sample;
  if (used.length < (model.min_sample_size ?? minSampleSizeDefault(model.test))) {
    return { reason: 'too-few-values' };
  }
  if (!used.every(Number.isFinite)) return { reason: 'non-finite' };
  const boundaries = { lower: model.lower_boundary, upper: model.upper_boundary };
  const outcome = TESTS[model.test](used, boundaries);
  if (typeof outcome === 'string') return { reason: outcome };
  // A sum of huge values overflows: limits of ±Infinity would judge nothing sensibly.
  if (![outcome.baseline, outcome.lower_limit, outcome.upper_limit].every(finiteOrNull)) {
    return { reason: 'non-finite' };
  }
  return { limits: { ...outcome, sample_size: used.length } };
}

/** sample: the baseline values oldest first (already cut by window_seconds by the caller). undefined = no verdict possible. */
export function computeLimits(
  model: ThresholdModel,
  sample: readonly number[],
): Limits | undefined {
  const result = limitsOrReason(model, sample);
  return 'limits' in result ? result.limits : undefined;
}
