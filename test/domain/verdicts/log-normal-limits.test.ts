import { describe, expect, it } from 'vitest';
import { logNormalLimits } from '../../../server/domain/verdicts/models/log-normal.js';
import type { SidedLimits } from '../../../server/domain/verdicts/models/sided.js';
import { meanAndDeviation, normalCdf } from './independent-distributions.js';

const FIVE = [1, 2, 3, 4, 5];
const LARGE = Array.from({ length: 64 }, (_, i) => 50 * Math.exp(0.2 * Math.sin(i * 2.3)) + i / 10);

function limitsOf(outcome: ReturnType<typeof logNormalLimits>): SidedLimits {
  if (typeof outcome === 'string') throw new Error(`no limits: ${outcome}`);
  return outcome;
}

describe('log_normal', () => {
  it('1…5: the baseline is the geometric mean, 120^(1/5)', () => {
    const limits = limitsOf(logNormalLimits(FIVE, { lower: null, upper: 0.99 }));
    expect(limits.baseline).toBeCloseTo(120 ** (1 / 5), 12);
  });

  it.each([
    { name: '1…5', sample: FIVE, lower: 0.9, upper: 0.99 },
    { name: 'large', sample: LARGE, lower: 0.99, upper: 0.99 },
    { name: 'large, upper only', sample: LARGE, lower: null, upper: 0.95 },
    { name: 'large, lower only', sample: LARGE, lower: 0.6, upper: null },
  ])('$name: Φ of the log-limits is the boundary', ({ sample, lower, upper }) => {
    const { m: location, s: scale } = meanAndDeviation(sample.map((x) => Math.log(x)));
    const limits = limitsOf(logNormalLimits(sample, { lower, upper }));
    const baseline = Math.exp(location);
    expect(limits.baseline).toBeCloseTo(baseline, 10);
    if (upper === null) expect(limits.upper_limit).toBeNull();
    else {
      const z = (Math.log(limits.upper_limit as number) - location) / scale;
      expect(normalCdf(z)).toBeCloseTo(upper, 11);
    }
    // lower = 2·baseline − exp(μ + σ·Φ⁻¹(b)), so 2·baseline − lower is the inverse CDF at b.
    if (lower === null) expect(limits.lower_limit).toBeNull();
    else {
      const z = (Math.log(2 * baseline - (limits.lower_limit as number)) - location) / scale;
      expect(normalCdf(z)).toBeCloseTo(lower, 11);
    }
  });

  it.each([
    [[1, 2, 0, 3], 'non-positive-values'],
    [[1, -2, 3], 'non-positive-values'],
    [[3, 3, 3], 'no-spread'],
  ])('%j: %s', (sample, reason) => {
    expect(logNormalLimits(sample, { lower: null, upper: 0.99 })).toBe(reason);
  });
});
