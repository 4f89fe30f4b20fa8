import { describe, expect, it } from 'vitest';
import { intervalRanks } from '../../../server/domain/verdicts/change-points/interval-ranks.js';
import {
  kolmogorovTail,
  splitPValue,
} from '../../../server/domain/verdicts/change-points/significance.js';

/** D = sup |F_left − F_right|, the empirical distribution functions evaluated at every value. */
function distanceByDefinition(left: readonly number[], right: readonly number[]): number {
  const cdf = (sample: readonly number[], x: number) =>
    sample.filter((v) => v <= x).length / sample.length;
  return Math.max(...[...left, ...right].map((x) => Math.abs(cdf(left, x) - cdf(right, x))));
}

/**
 * Kolmogorov's Q(λ) from the other of its two series, 1 − (√(2π)/λ)·Σₖ e^(−(2k − 1)²π²/(8λ²)),
 * which converges fast where the one the code uses converges slowly.
 */
function kolmogorovTailByTheta(lambda: number): number {
  let sum = 0;
  for (let k = 1; k <= 50; k++)
    sum += Math.exp((-((2 * k - 1) ** 2) * Math.PI ** 2) / (8 * lambda * lambda));
  return 1 - (Math.sqrt(2 * Math.PI) / lambda) * sum;
}

describe("Kolmogorov's distribution", () => {
  it.each([0.5, 0.8, 1, 1.2, 1.5, 2, 2.5])('Q(%f) by both series', (lambda) => {
    expect(kolmogorovTail(lambda)).toBeCloseTo(kolmogorovTailByTheta(lambda), 12);
  });

  it.each([
    // Critical values of the Kolmogorov distribution as tabulated.
    [1.224, 0.1],
    [1.358, 0.05],
    [1.628, 0.01],
  ])('Q(%f) ≈ %f (table)', (lambda, alpha) => {
    expect(kolmogorovTail(lambda)).toBeCloseTo(alpha, 3);
  });

  it('1 where the series does not converge (λ near 0)', () => {
    expect(kolmogorovTail(0)).toBe(1);
    expect(kolmogorovTail(0.01)).toBe(1);
    expect(kolmogorovTail(0.1)).toBeCloseTo(1, 12);
  });
});

describe('the Kolmogorov–Smirnov test of a split', () => {
  it.each([
    [[1, 2, 3, 10, 11, 12, 13], 3],
    [[5, 5, 6, 5, 9, 9, 5, 9], 4],
    [[2, 2, 2, 2, 3, 3, 3, 3, 3], 5],
    [[7, 1, 8, 2, 9, 3, 10, 4, 11, 5], 5],
    // A right part that mixes a lower and a higher level: its mean is near the left's.
    [[10, 10.5, 9.5, 10, 10.2, 9.8, 5, 15, 5.2, 14.8, 5.1, 15.1], 6],
  ])('%j split after %i: D from the distribution functions, p from Q(λ)', (values, left) => {
    const n = values.length;
    const right = n - left;
    const d = distanceByDefinition(values.slice(0, left), values.slice(left));
    const effective = Math.sqrt((left * right) / n);
    const want = Math.min(1, kolmogorovTailByTheta((effective + 0.12 + 0.11 / effective) * d));
    expect(splitPValue(intervalRanks(values, 0, n), left, 1)).toBeCloseTo(want, 10);
  });

  it('multiplies by the number of splits chosen among, at most 1', () => {
    const values = Array.from({ length: 40 }, (_, i) => (i < 20 ? i % 5 : 10 + (i % 5)));
    const ranks = intervalRanks(values, 0, values.length);
    const once = splitPValue(ranks, 20, 1);
    expect(once).toBeLessThan(1e-6);
    expect(splitPValue(ranks, 20, 7)).toBeCloseTo(once * 7, 15);
    expect(splitPValue(ranks, 20, 1e12)).toBe(1);
  });

  it('every value equal: p = 1', () => {
    expect(splitPValue(intervalRanks([3, 3, 3, 3, 3, 3], 0, 6), 3, 1)).toBe(1);
  });
});
