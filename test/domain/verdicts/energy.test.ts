import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../bench/synthetic-series.js';
import { bestSplit } from '../../../server/domain/verdicts/change-points/energy.js';
import { intervalRanks } from '../../../server/domain/verdicts/change-points/interval-ranks.js';

/** q̂ of one split, straight from the definition: every pair summed. */
function qhatByDefinition(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  const m = y.length;
  let between = 0;
  for (const a of x) for (const b of y) between += Math.abs(a - b);
  let withinX = 0;
  for (let i = 0; i < n; i++)
    for (let k = i + 1; k < n; k++) withinX += Math.abs((x[i] as number) - (x[k] as number));
  let withinY = 0;
  for (let j = 0; j < m; j++)
    for (let k = j + 1; k < m; k++) withinY += Math.abs((y[j] as number) - (y[k] as number));
  const energy =
    (2 / (n * m)) * between - withinX / ((n * (n - 1)) / 2) - withinY / ((m * (m - 1)) / 2);
  return ((n * m) / (n + m)) * energy;
}

function bestByDefinition(values: readonly number[], minSegment: number) {
  let best = { left: -1, qhat: Number.NEGATIVE_INFINITY };
  for (let left = minSegment; left <= values.length - minSegment; left++) {
    const qhat = qhatByDefinition(values.slice(0, left), values.slice(left));
    if (qhat > best.qhat) best = { left, qhat };
  }
  return best;
}

const random = seededRandom(23);
const SERIES = {
  'a step': [10, 11, 9, 10, 12, 10, 20, 21, 19, 22, 20],
  'ties and a step': [5, 5, 5, 6, 5, 5, 9, 9, 8, 9, 9, 9, 9],
  'noise, seeded (23)': Array.from({ length: 60 }, () => random() * 10),
  'integers with many ties, seeded': Array.from(
    { length: 80 },
    (_, i) => Math.floor(random() * 4) + (i > 50 ? 2 : 0),
  ),
  'large level, small spread': Array.from(
    { length: 40 },
    (_, i) => 1e9 + (i >= 25 ? 3 : 0) + random(),
  ),
  negative: [-3, -4, -3.5, -3, -8, -9, -8.5, -9],
};

describe('the energy statistic q̂ over every split (Fenwick sweeps) against its definition', () => {
  it.each(Object.entries(SERIES))('%s', (_name, values) => {
    for (const minSegment of [2, 3]) {
      const want = bestByDefinition(values, minSegment);
      const got = bestSplit(intervalRanks(values, 0, values.length), minSegment);
      expect(got?.left).toBe(want.left);
      expect(Math.abs((got?.qhat as number) - want.qhat)).toBeLessThanOrEqual(
        1e-9 * Math.max(1, Math.abs(want.qhat)),
      );
    }
  });

  it('an interval of another series is read from its own start', () => {
    const values = [100, 100, ...SERIES['a step'], -100];
    const got = bestSplit(intervalRanks(values, 2, 2 + SERIES['a step'].length), 2);
    expect(got?.left).toBe(bestByDefinition(SERIES['a step'], 2).left);
  });

  it('too short to split in two parts of min_segment: no split', () => {
    expect(bestSplit(intervalRanks([1, 2, 3, 4, 5], 0, 5), 3)).toBeUndefined();
  });
});
