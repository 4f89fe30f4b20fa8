import { describe, expect, it } from 'vitest';
import {
  computeLimits,
  limitsOrReason,
  type ThresholdModel,
} from '../../../server/domain/verdicts/index.js';

const model = (fields: Partial<ThresholdModel> & Pick<ThresholdModel, 'test'>): ThresholdModel => ({
  lower_boundary: null,
  upper_boundary: 0.99,
  ...fields,
});

describe('computeLimits: which values, and when there are none', () => {
  it('uses the newest max_sample_size values only (the sample is oldest first)', () => {
    const limits = computeLimits(
      model({ test: 'percentage', upper_boundary: 0.1, max_sample_size: 5 }),
      [1000, -1000, 1, 2, 3, 4, 5],
    );
    expect(limits).toEqual({ baseline: 3, lower_limit: null, upper_limit: 3.3, sample_size: 5 });
  });

  it('max_sample_size defaults to 64', () => {
    const sample = [
      ...Array.from({ length: 10 }, () => 1e6),
      ...Array.from({ length: 64 }, () => 2),
    ];
    const limits = computeLimits(model({ test: 'percentage', upper_boundary: 0 }), sample);
    expect(limits).toEqual({ baseline: 2, lower_limit: null, upper_limit: 2, sample_size: 64 });
  });

  it.each([
    // Defaults: 2 for the variance tests, 1 otherwise.
    { test: 't_test', min: undefined, size: 1, judged: false },
    { test: 't_test', min: undefined, size: 2, judged: true },
    { test: 'z_score', min: undefined, size: 1, judged: false },
    { test: 'log_normal', min: undefined, size: 1, judged: false },
    { test: 'percentage', min: undefined, size: 0, judged: false },
    { test: 'percentage', min: undefined, size: 1, judged: true },
    { test: 'iqr', min: undefined, size: 1, judged: true },
    { test: 'static', min: undefined, size: 0, judged: false },
    { test: 'static', min: undefined, size: 1, judged: true },
    // delta_iqr needs one change, so two values, whatever min_sample_size says.
    { test: 'delta_iqr', min: undefined, size: 1, judged: false },
    { test: 'delta_iqr', min: undefined, size: 2, judged: true },
    // Set: below it, nothing.
    { test: 't_test', min: 8, size: 7, judged: false },
    { test: 't_test', min: 8, size: 8, judged: true },
    { test: 'iqr', min: 5, size: 4, judged: false },
  ] as const)(
    '$test, min_sample_size $min, $size values: judged $judged',
    ({ test, min, size, judged }) => {
      const sample = Array.from({ length: size }, (_, i) => 10 + (i % 3));
      const result = limitsOrReason(
        model({ test, upper_boundary: test === 'static' ? 20 : 0.99, min_sample_size: min }),
        sample,
      );
      if (judged) expect(result).toHaveProperty('limits.sample_size', size);
      else expect(result).toEqual({ reason: 'too-few-values' });
    },
  );

  it('min_sample_size counts the values left after max_sample_size', () => {
    const result = limitsOrReason(
      model({ test: 't_test', min_sample_size: 4, max_sample_size: 4 }),
      [1, 2, 3, 4, 5, 6],
    );
    expect(result).toHaveProperty('limits.sample_size', 4);
  });

  it.each([
    ['z_score', [5, 5, 5, 5], { reason: 'no-spread' }],
    ['t_test', [5, 5, 5, 5], { reason: 'no-spread' }],
    ['log_normal', [5, 5, 5, 5], { reason: 'no-spread' }],
    ['log_normal', [5, 0, 5, 6], { reason: 'non-positive-values' }],
    ['t_test', [5, Number.NaN, 6], { reason: 'non-finite' }],
    ['iqr', [5, Number.POSITIVE_INFINITY], { reason: 'non-finite' }],
    // The mean of two huge values overflows.
    ['percentage', [1.5e308, 1.5e308], { reason: 'non-finite' }],
  ] as const)('%s on %j: %j, and computeLimits says undefined', (test, sample, want) => {
    const chosen = model({ test, upper_boundary: test === 'percentage' ? 0.1 : 0.99 });
    expect(limitsOrReason(chosen, sample)).toEqual(want);
    expect(computeLimits(chosen, sample)).toBeUndefined();
  });

  it('the IQR tests judge a sample without spread: the limits are the median', () => {
    expect(
      computeLimits(model({ test: 'iqr', lower_boundary: 3, upper_boundary: 3 }), [4, 4, 4]),
    ).toEqual({ baseline: 4, lower_limit: 4, upper_limit: 4, sample_size: 3 });
  });
});
