import {
  CDF_TESTS,
  MAX_SAMPLE_SIZE_DEFAULT,
  minSampleSizeDefault,
  THRESHOLD_TESTS,
  type ThresholdModel,
  type ThresholdTest,
} from './threshold-model.js';

/** A model's fields as a request carries them, not yet checked. */
export interface ThresholdModelInput {
  test?: unknown;
  lower_boundary?: unknown;
  upper_boundary?: unknown;
  min_sample_size?: unknown;
  max_sample_size?: unknown;
  window_seconds?: unknown;
}

export type ModelField = keyof ThresholdModelInput;

/** One broken rule: the field it is about and a sentence naming it, fit for a 400's `error`. */
export interface ModelError {
  field: ModelField;
  message: string;
}

export type ModelValidation =
  | { ok: true; model: ThresholdModel }
  | { ok: false; errors: ModelError[] };

/** The most baseline values a threshold may use: judging reads this many per key at ingest. */
export const MAX_SAMPLE_SIZE_LIMIT = 1000;
/** The longest window_seconds: five years, the longest statistics range. */
export const MAX_WINDOW_SECONDS = 5 * 365 * 86_400;

const isNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);
const isCount = (value: unknown, min: number, max: number): value is number =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= max;

/** What a boundary of each test may be, and how to say it. */
function boundaryRule(test: ThresholdTest): { accepts: (b: number) => boolean; says: string } {
  if (CDF_TESTS.has(test))
    return { accepts: (b) => b >= 0.5 && b < 1, says: 'a probability in [0.5, 1)' };
  if (test === 'static') return { accepts: () => true, says: 'a finite number' };
  return { accepts: (b) => b >= 0, says: 'a non-negative number' };
}

/**
 * Checks a model against the rules of its test (docs/verdicts-statistics.md): a boundary may be
 * absent (null or missing) on either side but not both; a CDF boundary is a probability in
 * [0.5, 1); a percentage or IQR boundary is ≥ 0; static's lower boundary is at most its upper one;
 * sample sizes are whole numbers with min ≤ max (the variance tests need 2); window_seconds is a
 * whole number of seconds. Every broken rule is listed, each with its field.
 */
export function validateModel(input: ThresholdModelInput): ModelValidation {
  const errors: ModelError[] = [];
  const fail = (field: ModelField, message: string) => errors.push({ field, message });

  if (!THRESHOLD_TESTS.includes(input.test as ThresholdTest)) {
    fail('test', `test must be one of: ${THRESHOLD_TESTS.join(', ')}.`);
    return { ok: false, errors };
  }
  const test = input.test as ThresholdTest;

  const rule = boundaryRule(test);
  const boundary = (field: 'lower_boundary' | 'upper_boundary'): number | null => {
    const value = input[field];
    if (value === undefined || value === null) return null;
    if (!isNumber(value) || !rule.accepts(value)) {
      fail(field, `${field} must be ${rule.says} for ${test}.`);
    }
    return value as number;
  };
  const lower = boundary('lower_boundary');
  const upper = boundary('upper_boundary');
  if (lower === null && upper === null) {
    fail(
      'upper_boundary',
      'lower_boundary or upper_boundary is required: either side may be absent, not both.',
    );
  }
  if (test === 'static' && isNumber(lower) && isNumber(upper) && lower > upper) {
    fail('lower_boundary', 'lower_boundary must not exceed upper_boundary for static.');
  }

  const model: ThresholdModel = { test, lower_boundary: lower, upper_boundary: upper };
  // The variance tests need two values: a smaller minimum would never judge.
  const fewest = minSampleSizeDefault(test);
  let max = MAX_SAMPLE_SIZE_DEFAULT;
  if (input.max_sample_size !== undefined && input.max_sample_size !== null) {
    if (isCount(input.max_sample_size, fewest, MAX_SAMPLE_SIZE_LIMIT)) {
      max = input.max_sample_size;
      model.max_sample_size = max;
    } else {
      fail(
        'max_sample_size',
        `max_sample_size must be a whole number from ${fewest} to ${MAX_SAMPLE_SIZE_LIMIT} for ${test}.`,
      );
    }
  }
  if (input.min_sample_size !== undefined && input.min_sample_size !== null) {
    if (isCount(input.min_sample_size, fewest, max)) {
      model.min_sample_size = input.min_sample_size;
    } else {
      fail(
        'min_sample_size',
        `min_sample_size must be a whole number from ${fewest} to max_sample_size (${max}) for ${test}.`,
      );
    }
  }
  if (input.window_seconds !== undefined && input.window_seconds !== null) {
    if (isCount(input.window_seconds, 1, MAX_WINDOW_SECONDS)) {
      model.window_seconds = input.window_seconds;
    } else {
      fail(
        'window_seconds',
        `window_seconds must be a whole number of seconds from 1 to ${MAX_WINDOW_SECONDS} (five years).`,
      );
    }
  }
  return errors.length === 0 ? { ok: true, model } : { ok: false, errors };
}
