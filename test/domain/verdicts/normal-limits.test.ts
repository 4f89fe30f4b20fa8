import { describe, expect, it } from 'vitest';
import { tTestLimits, zScoreLimits } from '../../../server/domain/verdicts/models/normal.js';
import type { SidedLimits } from '../../../server/domain/verdicts/models/sided.js';
import { meanAndDeviation, normalCdf, studentTCdfClosedForm } from './independent-distributions.js';

const SMALL = [10, 12, 11, 13, 9];
const TWO = [-1, 1];
/** 64 values of a wavy series with a trend, as a long history. */
const LARGE = Array.from({ length: 64 }, (_, i) => 100 + 5 * Math.sin(i * 1.7) + (i % 7) - i / 20);
const SAMPLES = { SMALL, TWO, LARGE };
const BOUNDARIES: [number | null, number | null][] = [
  [null, 0.99],
  [0.99, null],
  [0.95, 0.999],
  [0.5, 0.75],
];

const cases = Object.entries(SAMPLES).flatMap(([name, sample]) =>
  BOUNDARIES.map(([lower, upper]) => ({ name, sample, lower, upper })),
);

function limitsOf(outcome: ReturnType<typeof zScoreLimits>): SidedLimits {
  if (typeof outcome === 'string') throw new Error(`no limits: ${outcome}`);
  return outcome;
}

describe('z_score', () => {
  it.each(cases)(
    '$name, boundaries $lower / $upper: Φ at each limit is its boundary',
    ({ sample, lower, upper }) => {
      const { m, s } = meanAndDeviation(sample);
      const limits = limitsOf(zScoreLimits(sample, { lower, upper }));
      expect(limits.baseline).toBeCloseTo(m, 12);
      if (upper === null) expect(limits.upper_limit).toBeNull();
      else expect(normalCdf(((limits.upper_limit as number) - m) / s)).toBeCloseTo(upper, 12);
      // The lower limit is the mirror image of the inverse CDF at the lower boundary.
      if (lower === null) expect(limits.lower_limit).toBeNull();
      else expect(normalCdf((m - (limits.lower_limit as number)) / s)).toBeCloseTo(lower, 12);
    },
  );

  it('by the normal table: mean ± 2.326·s at 0.99', () => {
    const limits = limitsOf(zScoreLimits(SMALL, { lower: 0.99, upper: 0.99 }));
    const s = Math.sqrt(2.5); // Σ(x − 11)² = 10, over n − 1 = 4
    expect(Math.abs((limits.upper_limit as number) - (11 + 2.326 * s))).toBeLessThan(0.0005 * s);
    expect(Math.abs((limits.lower_limit as number) - (11 - 2.326 * s))).toBeLessThan(0.0005 * s);
  });

  it('no spread, no limits', () => {
    expect(zScoreLimits([4, 4, 4], { lower: null, upper: 0.99 })).toBe('no-spread');
  });
});

describe('t_test', () => {
  it.each(cases)(
    '$name, boundaries $lower / $upper: F(t; n − 1) at each limit is its boundary',
    ({ sample, lower, upper }) => {
      const { n, m, s } = meanAndDeviation(sample);
      const scale = s * Math.sqrt(1 + 1 / n);
      const limits = limitsOf(tTestLimits(sample, { lower, upper }));
      expect(limits.baseline).toBeCloseTo(m, 12);
      const cdf = (limit: number) => studentTCdfClosedForm(limit, n - 1);
      if (upper === null) expect(limits.upper_limit).toBeNull();
      else
        expect(Math.abs(cdf(((limits.upper_limit as number) - m) / scale) - upper)).toBeLessThan(
          2e-8,
        );
      if (lower === null) expect(limits.lower_limit).toBeNull();
      else
        expect(Math.abs(cdf((m - (limits.lower_limit as number)) / scale) - lower)).toBeLessThan(
          2e-8,
        );
    },
  );

  it('two values: one degree of freedom, whose quantile is tan(π(p − ½))', () => {
    // mean 0, s = √2, scale √2·√(1 + 1/2) = √3.
    const limits = limitsOf(tTestLimits(TWO, { lower: 0.95, upper: 0.99 }));
    expect(limits.upper_limit).toBeCloseTo(Math.sqrt(3) * Math.tan(Math.PI * 0.49), 6);
    expect(limits.lower_limit).toBeCloseTo(-Math.sqrt(3) * Math.tan(Math.PI * 0.45), 6);
  });

  it('by the t table: 1…8 at 0.99 is 4.5 + 2.998·√6·√(9/8)', () => {
    const limits = limitsOf(tTestLimits([1, 2, 3, 4, 5, 6, 7, 8], { lower: null, upper: 0.99 }));
    const scale = Math.sqrt(6) * Math.sqrt(9 / 8);
    expect(Math.abs((limits.upper_limit as number) - (4.5 + 2.998 * scale))).toBeLessThan(
      0.0005 * scale,
    );
  });

  it('wider than z_score on the same sample (a prediction interval)', () => {
    const z = limitsOf(zScoreLimits(SMALL, { lower: null, upper: 0.99 }));
    const t = limitsOf(tTestLimits(SMALL, { lower: null, upper: 0.99 }));
    expect(t.upper_limit as number).toBeGreaterThan(z.upper_limit as number);
  });

  it('no spread, no limits', () => {
    expect(tTestLimits([7, 7], { lower: 0.99, upper: 0.99 })).toBe('no-spread');
  });
});
