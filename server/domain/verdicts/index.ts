/**
 * Verdicts on series values: threshold models and their limits (the seven tests Bencher defines),
 * the judgement of one value, and change points (E-Divisive Means). Pure functions, no I/O.
 * Definitions and decisions: docs/verdicts-statistics.md.
 */
export type { ChangePoint, ChangePointOptions } from './change-points/change-point.js';
export { detectChangePoints } from './change-points/detect.js';
export {
  type ChangePointState,
  type ChangePointUpdate,
  initialChangePointState,
  REPEATED_LOOKS,
  updateChangePoints,
} from './change-points/incremental.js';
export { CHANGE_POINT_DEFAULTS } from './change-points/options.js';
export { type Judgement, judge, type Verdict } from './judge.js';
export {
  computeLimits,
  type Limits,
  type LimitsResult,
  limitsOrReason,
  type NoLimitsReason,
} from './limits.js';
export {
  CDF_TESTS,
  type Direction,
  defaultThreshold,
  MAX_SAMPLE_SIZE_DEFAULT,
  minSampleSizeDefault,
  THRESHOLD_TESTS,
  type ThresholdModel,
  type ThresholdTest,
  VARIANCE_TESTS,
} from './threshold-model.js';
export {
  MAX_SAMPLE_SIZE_LIMIT,
  MAX_WINDOW_SECONDS,
  type ModelError,
  type ModelField,
  type ModelValidation,
  type ThresholdModelInput,
  validateModel,
} from './validate-model.js';
