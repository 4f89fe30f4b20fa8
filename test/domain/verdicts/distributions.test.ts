import { describe, expect, it } from 'vitest';
import {
  normalCdf as libraryNormalCdf,
  normalQuantile,
  studentTCdf,
  studentTQuantile,
} from '../../../server/domain/verdicts/distributions.js';
import { normalCdf, studentTCdfClosedForm } from './independent-distributions.js';

describe('inverse CDFs (jStat) against the independent CDFs', () => {
  it.each([0.5, 0.6, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 0.9999])('Φ(Φ⁻¹(%f)) = p', (p) => {
    expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 12);
  });

  it.each([
    [0.95, 1.645],
    [0.975, 1.96],
    [0.99, 2.326],
    [0.995, 2.576],
    [0.999, 3.09],
  ])('Φ⁻¹(%f) = %f (table)', (p, table) => {
    expect(Math.abs(normalQuantile(p) - table)).toBeLessThanOrEqual(0.0005);
  });

  const degrees = [1, 2, 3, 4, 7, 10, 30, 63, 199, 999];
  const probabilities = [0.5, 0.75, 0.9, 0.95, 0.99, 0.999];
  it.each(degrees.flatMap((nu) => probabilities.map((p) => [p, nu])))(
    'F(t⁻¹(%f; ν = %i)) = p',
    (p, nu) => {
      // jStat's t quantiles miss p by at most 1.3e-8 (measured over ν = 1…1000, p = 0.5…0.99999).
      expect(Math.abs(studentTCdfClosedForm(studentTQuantile(p, nu), nu) - p)).toBeLessThan(2e-8);
    },
  );

  it.each([
    [0.99, 7, 2.998],
    [0.975, 10, 2.228],
    [0.99, 30, 2.457],
    [0.99, 60, 2.39],
  ])('t⁻¹(%f; ν = %i) = %f (table)', (p, nu, table) => {
    expect(Math.abs(studentTQuantile(p, nu) - table)).toBeLessThanOrEqual(0.0005);
  });

  it.each([
    [-2, 5],
    [-6, 30],
    [-12, 100],
    [0, 9],
    [1.5, 4],
  ])('the t CDF at %f with ν = %i, tails included', (t, nu) => {
    const want = studentTCdfClosedForm(t, nu);
    expect(Math.abs(studentTCdf(t, nu) - want)).toBeLessThanOrEqual(Math.max(1e-12, want * 1e-8));
  });

  it.each([0, -0.5, -1, -2, -3, -4, -5])('Φ(%f) for the rank test, the lower tail precise', (z) => {
    const want = normalCdf(z);
    expect(Math.abs(libraryNormalCdf(z) - want)).toBeLessThanOrEqual(Math.max(1e-15, want * 1e-9));
  });
});
