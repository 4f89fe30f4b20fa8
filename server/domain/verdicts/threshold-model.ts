/**
 * What a threshold holds: a statistical test and its parameters (Bencher calls it a model), the
 * sample sizes it needs, and the default every key with a direction gets.
 */
export const THRESHOLD_TESTS = [
  'static',
  'percentage',
  'z_score',
  't_test',
  'log_normal',
  'iqr',
  'delta_iqr',
] as const;
export type ThresholdTest = (typeof THRESHOLD_TESTS)[number];

export interface ThresholdModel {
  test: ThresholdTest;
  /** The lower side's parameter (a limit, a fraction, a probability or an IQR multiple); null: no lower limit. */
  lower_boundary: number | null;
  /** The upper side's parameter; null: no upper limit. */
  upper_boundary: number | null;
  /** Fewer baseline values than this: no verdict. Default: MIN_SAMPLE_SIZE_DEFAULT[test]. */
  min_sample_size?: number;
  /** Only the newest this many baseline values are used. Default 64. */
  max_sample_size?: number;
  /** Only baseline values at most this old (seconds); the caller cuts the sample. Absent: no cut. */
  window_seconds?: number;
}

/** Whether smaller or larger values are better; null: unknown (no regression verdict). */
export type Direction = 'lower' | 'higher' | null;

/** The tests whose limits come from a sample variance: they need two values and some spread. */
export const VARIANCE_TESTS: ReadonlySet<ThresholdTest> = new Set([
  'z_score',
  't_test',
  'log_normal',
]);

/** The tests whose boundaries are probabilities, in [0.5, 1). */
export const CDF_TESTS: ReadonlySet<ThresholdTest> = VARIANCE_TESTS;

export const MAX_SAMPLE_SIZE_DEFAULT = 64;

/** min_sample_size when the model does not set it: 2 for the variance tests, 1 otherwise. */
export function minSampleSizeDefault(test: ThresholdTest): number {
  return VARIANCE_TESTS.has(test) ? 2 : 1;
}

/**
 * The threshold a key with a direction has without setup: Student's t at 0.99 on the side the
 * direction says is worse, over the newest 64 values, judging from the 8th value on. None without a
 * direction.
 */
export function defaultThreshold(direction: Direction): ThresholdModel | undefined {
  if (direction === null) return undefined;
  return {
    test: 't_test',
    lower_boundary: direction === 'higher' ? 0.99 : null,
    upper_boundary: direction === 'lower' ? 0.99 : null,
    min_sample_size: 8,
    max_sample_size: MAX_SAMPLE_SIZE_DEFAULT,
  };
}
