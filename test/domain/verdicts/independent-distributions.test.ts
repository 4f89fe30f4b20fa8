import { describe, expect, it } from 'vitest';
import {
  erf,
  erfcContinuedFraction,
  normalCdf,
  studentTCdfClosedForm,
} from './independent-distributions.js';

/** The t with F(t; ν) = p, by bisection of the closed form. */
function tQuantileByBisection(p: number, nu: number): number {
  let low = 0;
  let high = 1000;
  for (let i = 0; i < 200; i++) {
    const middle = (low + high) / 2;
    if (studentTCdfClosedForm(middle, nu) < p) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

// The tests' own CDFs, checked against published tables before anything is checked with them.
describe('the independent CDFs of the tests', () => {
  it.each([
    // Abramowitz & Stegun, Table 7.1 (erf to 15 decimals).
    [0.5, 0.520499877813047],
    [1, 0.842700792949715],
    [2, 0.995322265018953],
    [2.5, 0.999593047982555],
  ])('erf(%f) = %f', (x, want) => {
    expect(erf(x)).toBeCloseTo(want, 13);
  });

  it.each([
    // Abramowitz & Stegun, Table 7.1: erfc(2), erfc(3).
    [2, 4.677734981047266e-3],
    [3, 2.209049699858544e-5],
  ])('erfc(%f) = %f by the continued fraction', (x, want) => {
    expect(Math.abs(erfcContinuedFraction(x) - want)).toBeLessThan(want * 1e-13);
  });

  it.each([
    // Standard normal quantiles as commonly tabulated to 16 digits.
    [1.6448536269514722, 0.95],
    [1.959963984540054, 0.975],
    [2.3263478740408408, 0.99],
    [2.5758293035489004, 0.995],
    [3.090232306167813, 0.999],
  ])('Φ(%f) = %f', (z, p) => {
    expect(normalCdf(z)).toBeCloseTo(p, 13);
    expect(normalCdf(-z)).toBeCloseTo(1 - p, 13);
  });

  it.each([
    // ν = 1 and 2 have exact quantiles: tan(π(p − ½)) and (2p − 1)/√(2p(1 − p)).
    [0.95, 1, Math.tan(Math.PI * 0.45)],
    [0.99, 1, Math.tan(Math.PI * 0.49)],
    [0.975, 2, 0.95 / Math.sqrt(2 * 0.975 * 0.025)],
    [0.99, 2, 0.98 / Math.sqrt(2 * 0.99 * 0.01)],
  ])('Student t: F at the exact %f-quantile (ν = %i) is p', (p, nu, t) => {
    expect(studentTCdfClosedForm(t, nu)).toBeCloseTo(p, 13);
    expect(studentTCdfClosedForm(-t, nu)).toBeCloseTo(1 - p, 13);
  });

  it.each([
    // The printed t table (3 decimals).
    [0.975, 1, 12.706],
    [0.995, 1, 63.657],
    [0.95, 2, 2.92],
    [0.95, 5, 2.015],
    [0.99, 5, 3.365],
    [0.99, 7, 2.998],
    [0.975, 10, 2.228],
    [0.99, 10, 2.764],
    [0.99, 30, 2.457],
    [0.995, 30, 2.75],
    [0.99, 60, 2.39],
  ])('Student t: the %f-quantile with ν = %i is %f (table)', (p, nu, table) => {
    expect(Math.abs(tQuantileByBisection(p, nu) - table)).toBeLessThanOrEqual(0.0005 + 1e-12);
  });

  it('Φ is continuous where it switches to the continued fraction', () => {
    expect(normalCdf(-3 - 1e-12)).toBeCloseTo(0.5 * (1 + erf(-3 / Math.SQRT2)), 14);
    // Φ(−5) as tabulated: 2.866515718791939e-7.
    expect(Math.abs(normalCdf(-5) - 2.866515718791939e-7)).toBeLessThan(1e-20);
  });
});
