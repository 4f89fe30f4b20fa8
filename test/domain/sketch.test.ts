import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/synthetic-series.js';
import { addBins, type Bins, binOf, quantile } from '../../server/domain/sketch.js';

/** The nearest-rank q-quantile, x[⌈q·n⌉ − 1] of the values in ascending order. */
function nearestRank(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(q * sorted.length) - 1] as number;
}

function sketch(values: readonly number[]): Bins {
  const bins: Bins = new Map();
  addBins(
    bins,
    values.map((value) => [binOf(value), 1] as [number, number]),
  );
  return bins;
}

const within2 = (got: number | null, want: number) =>
  expect(Math.abs((got as number) - want)).toBeLessThanOrEqual(Math.abs(want) * 0.02 + 1e-12);

describe('sketch quantiles: within 2 % of the nearest-rank value', () => {
  // Values 10 % apart: no two share a bin, and a neighbour is 10 % off, so the rank must be right.
  const spaced = (n: number) => Array.from({ length: n }, (_, i) => 1.1 ** i);

  it.each([1, 2, 3, 4, 5, 10, 19, 20, 21, 43, 100])(
    '%i values, each 10 percent above the last: p50 and p95',
    (n) => {
      const values = spaced(n);
      within2(quantile(sketch(values), 0.5), nearestRank(values, 0.5));
      within2(quantile(sketch(values), 0.95), nearestRank(values, 0.95));
    },
  );

  it('p95 of 43 values is the 41st smallest (x[40]), not x[⌊0.95·42⌋] = x[39]', () => {
    const values = spaced(43);
    const p95 = quantile(sketch(values), 0.95) as number;
    within2(p95, values[40] as number);
    expect(Math.abs(p95 - (values[39] as number))).toBeGreaterThan(0.05 * (values[39] as number));
  });

  it.each([7, 30, 250])('%i seeded random values with ties and negatives (seed 12)', (n) => {
    const random = seededRandom(12);
    const values = Array.from({ length: n }, () => Math.round((random() - 0.3) * 1000) / 10);
    for (const q of [0.5, 0.95]) {
      const want = nearestRank(values, q);
      // Values within 1e-300 of zero count as zero.
      if (want === 0) expect(quantile(sketch(values), q)).toBe(0);
      else within2(quantile(sketch(values), q), want);
    }
  });

  it('no values: null', () => {
    expect(quantile(new Map(), 0.5)).toBeNull();
  });
});
