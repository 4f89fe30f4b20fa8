import { describe, expect, it } from 'vitest';
import { deltaIqrLimits } from '../../../server/domain/verdicts/models/delta-iqr.js';
import { iqrLimits } from '../../../server/domain/verdicts/models/iqr.js';

// Quartiles worked out by hand: linear interpolation at rank q·(n − 1) of the sorted sample.
describe('iqr: median ± b·(Q3 − Q1)', () => {
  it.each([
    // 1…5: Q1 = 2 (rank 1), median 3, Q3 = 4 (rank 3).
    { sample: [5, 1, 4, 2, 3], lower: 1.5, upper: 1.5, want: [3, 0, 6] },
    // 1…4: Q1 at rank 0.75 = 1.75, median 2.5, Q3 at rank 2.25 = 3.25; IQR 1.5.
    { sample: [1, 2, 3, 4], lower: 2, upper: null, want: [2.5, -0.5, null] },
    // −6, −6, 1, 1, 9, 9: Q1 at rank 1.25 = −4.25, median 1, Q3 at rank 3.75 = 7; IQR 11.25.
    { sample: [9, -6, 1, 9, -6, 1], lower: null, upper: 1, want: [1, null, 12.25] },
    // One value: every quartile is that value.
    { sample: [42], lower: 3, upper: 3, want: [42, 42, 42] },
    // No spread: both limits are the median.
    { sample: [7, 7, 7, 7], lower: 1, upper: 1, want: [7, 7, 7] },
    // b = 0: the median on both sides.
    { sample: [1, 2, 3, 4, 5], lower: 0, upper: 0, want: [3, 3, 3] },
  ])(
    '$sample, b $lower / $upper → baseline, lower, upper $want',
    ({ sample, lower, upper, want }) => {
      const limits = iqrLimits(sample, { lower, upper });
      expect([limits.baseline, limits.lower_limit, limits.upper_limit]).toEqual(want);
    },
  );
});

describe('delta_iqr: median ± |median|·b·IQR of |xᵢ₊₁ − xᵢ| / |xᵢ|', () => {
  it.each([
    // Changes 1, 1/2, 1/3, 1/4 → sorted ¼, ⅓, ½, 1: Q1 at rank 0.75 = 0.3125, Q3 at 2.25 = 0.625.
    {
      sample: [1, 2, 3, 4, 5],
      lower: 2,
      upper: 2,
      want: [3, 3 - 3 * 2 * 0.3125, 3 + 3 * 2 * 0.3125],
    },
    // Changes 1/5, 1/4, 1/3, 1/2: Q1 = 0.2375, Q3 = ⅓ + ¼·⅙ = 0.375; IQR 0.1375.
    { sample: [5, 4, 3, 2, 1], lower: null, upper: 1, want: [3, null, 3 + 3 * 0.1375] },
    // Negative values: the same changes as 1…5, limits ordered around the median −3.
    {
      sample: [-1, -2, -3, -4, -5],
      lower: 1,
      upper: 1,
      want: [-3, -3 - 3 * 0.3125, -3 + 3 * 0.3125],
    },
    // A pair starting at zero has no relative change: only 1 → 2 (change 1) counts.
    { sample: [0, 1, 2], lower: 1, upper: 1, want: [1, 1, 1] },
  ])('$sample, b $lower / $upper → baseline, lower, upper', ({ sample, lower, upper, want }) => {
    const limits = deltaIqrLimits(sample, { lower, upper });
    if (typeof limits === 'string') throw new Error(limits);
    const got = [limits.baseline, limits.lower_limit, limits.upper_limit];
    got.forEach((value, i) => {
      if (want[i] === null) expect(value).toBeNull();
      else expect(value).toBeCloseTo(want[i] as number, 12);
    });
  });

  it.each([[[5]], [[0, 5]], [[0, 0, 0]]])('%j has no relative change: no limits', (sample) => {
    expect(deltaIqrLimits(sample, { lower: 1, upper: 1 })).toBe('too-few-values');
  });
});
