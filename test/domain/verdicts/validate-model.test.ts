import { describe, expect, it } from 'vitest';
import { type ThresholdModelInput, validateModel } from '../../../server/domain/verdicts/index.js';

describe('validateModel', () => {
  it.each([
    [
      { test: 't_test', upper_boundary: 0.99 },
      { test: 't_test', lower_boundary: null, upper_boundary: 0.99 },
    ],
    [
      {
        test: 'z_score',
        lower_boundary: 0.5,
        upper_boundary: null,
        min_sample_size: 2,
        max_sample_size: 2,
      },
      {
        test: 'z_score',
        lower_boundary: 0.5,
        upper_boundary: null,
        min_sample_size: 2,
        max_sample_size: 2,
      },
    ],
    [
      { test: 'percentage', lower_boundary: 0, window_seconds: 86_400 },
      { test: 'percentage', lower_boundary: 0, upper_boundary: null, window_seconds: 86_400 },
    ],
    [
      { test: 'iqr', upper_boundary: 3, max_sample_size: 1000 },
      { test: 'iqr', lower_boundary: null, upper_boundary: 3, max_sample_size: 1000 },
    ],
    [
      { test: 'delta_iqr', lower_boundary: 2.5, min_sample_size: 1 },
      { test: 'delta_iqr', lower_boundary: 2.5, upper_boundary: null, min_sample_size: 1 },
    ],
    [
      { test: 'static', lower_boundary: -3, upper_boundary: -3 },
      { test: 'static', lower_boundary: -3, upper_boundary: -3 },
    ],
    [
      { test: 'log_normal', lower_boundary: 0.999, upper_boundary: 0.75 },
      { test: 'log_normal', lower_boundary: 0.999, upper_boundary: 0.75 },
    ],
  ] as [ThresholdModelInput, object][])('accepts %j', (input, model) => {
    expect(validateModel(input)).toEqual({ ok: true, model });
  });

  it.each([
    [{ test: 'mean' }, ['test']],
    [{}, ['test']],
    [{ test: 't_test' }, ['upper_boundary']],
    [{ test: 't_test', lower_boundary: null, upper_boundary: null }, ['upper_boundary']],
    [{ test: 't_test', upper_boundary: 1 }, ['upper_boundary']],
    [{ test: 'z_score', upper_boundary: 0.49 }, ['upper_boundary']],
    [{ test: 'log_normal', lower_boundary: 99 }, ['lower_boundary']],
    [{ test: 't_test', upper_boundary: '0.99' }, ['upper_boundary']],
    [{ test: 'percentage', upper_boundary: -0.1 }, ['upper_boundary']],
    [{ test: 'iqr', lower_boundary: Number.POSITIVE_INFINITY }, ['lower_boundary']],
    [
      { test: 'delta_iqr', lower_boundary: -1, upper_boundary: -1 },
      ['lower_boundary', 'upper_boundary'],
    ],
    [{ test: 'static', lower_boundary: 5, upper_boundary: 4 }, ['lower_boundary']],
    [{ test: 'static', upper_boundary: Number.NaN }, ['upper_boundary']],
    [{ test: 't_test', upper_boundary: 0.99, min_sample_size: 1 }, ['min_sample_size']],
    [{ test: 't_test', upper_boundary: 0.99, min_sample_size: 2.5 }, ['min_sample_size']],
    [{ test: 't_test', upper_boundary: 0.99, min_sample_size: 65 }, ['min_sample_size']],
    [
      { test: 'iqr', upper_boundary: 1, min_sample_size: 10, max_sample_size: 9 },
      ['min_sample_size'],
    ],
    [{ test: 'iqr', upper_boundary: 1, max_sample_size: 0 }, ['max_sample_size']],
    [{ test: 'iqr', upper_boundary: 1, max_sample_size: 1001 }, ['max_sample_size']],
    [{ test: 'z_score', upper_boundary: 0.9, max_sample_size: 1 }, ['max_sample_size']],
    [{ test: 'iqr', upper_boundary: 1, window_seconds: 0 }, ['window_seconds']],
    [{ test: 'iqr', upper_boundary: 1, window_seconds: 1.5 }, ['window_seconds']],
    [{ test: 'iqr', upper_boundary: 1, window_seconds: 5 * 365 * 86_400 + 1 }, ['window_seconds']],
  ] as [ThresholdModelInput, string[]][])('refuses %j, naming %j', (input, fields) => {
    const result = validateModel(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => error.field)).toEqual(fields);
    for (const error of result.errors) expect(error.message).toContain(error.field);
  });

  it('says what a CDF boundary must be', () => {
    expect(validateModel({ test: 't_test', upper_boundary: 1 })).toEqual({
      ok: false,
      errors: [
        {
          field: 'upper_boundary',
          message: 'upper_boundary must be a probability in [0.5, 1) for t_test.',
        },
      ],
    });
  });
});
