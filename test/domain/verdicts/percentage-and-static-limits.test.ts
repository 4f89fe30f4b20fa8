import { describe, expect, it } from 'vitest';
import { percentageLimits } from '../../../server/domain/verdicts/models/percentage.js';
import { staticLimits } from '../../../server/domain/verdicts/models/static.js';

describe('percentage: mean·(1 ∓ b)', () => {
  it.each([
    { sample: [10, 12, 11, 13, 9], lower: 0.1, upper: 0.1, want: [11, 9.9, 12.1] },
    { sample: [10, 12, 11, 13, 9], lower: null, upper: 0.5, want: [11, null, 16.5] },
    { sample: [200], lower: 0.25, upper: null, want: [200, 150, null] },
    // b above 1 on the lower side puts the limit below zero; allowed.
    { sample: [4, 6], lower: 2, upper: 0, want: [5, -5, 5] },
    // A negative mean: the distance is |mean|·b, so lower stays below upper.
    { sample: [-10, -12], lower: 0.1, upper: 0.1, want: [-11, -12.1, -9.9] },
  ])('$sample, b $lower / $upper', ({ sample, lower, upper, want }) => {
    const limits = percentageLimits(sample, { lower, upper });
    const got = [limits.baseline, limits.lower_limit, limits.upper_limit];
    got.forEach((value, i) => {
      if (want[i] === null) expect(value).toBeNull();
      else expect(value).toBeCloseTo(want[i] as number, 12);
    });
  });
});

describe('static: the boundaries are the limits', () => {
  it.each([
    { lower: -5, upper: 5 },
    { lower: null, upper: 500_000 },
    { lower: 0.8, upper: null },
  ])('$lower / $upper', ({ lower, upper }) => {
    expect(staticLimits({ lower, upper })).toEqual({
      baseline: null,
      lower_limit: lower,
      upper_limit: upper,
    });
  });
});
