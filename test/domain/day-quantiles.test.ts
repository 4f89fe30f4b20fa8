import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/synthetic-series.js';
import { binOf, valueOfBin } from '../../server/domain/sketch.js';
import { figuresOf, p50Of, quantilesOfText } from '../../server/domain/tests/test-days.js';

/**
 * The kept days' percentiles (test-days.ts, quantilesOfText): from a bins text, the nearest-rank
 * quantile x[⌈q·n⌉ − 1] of the durations the bins count, as the representative of its bin. The
 * expected values are computed here from that definition: every count expanded into that many
 * copies of its bin, sorted, indexed.
 */
function expected(rows: readonly [number, number][][], q: number): number | null {
  const expanded: number[] = [];
  for (const row of rows)
    for (const [bin, count] of row) for (let i = 0; i < count; i++) expanded.push(bin);
  if (expanded.length === 0) return null;
  expanded.sort((a, b) => a - b);
  return valueOfBin(expanded[Math.ceil(q * expanded.length) - 1] as number);
}

/** Rows' bins texts concatenated, as the repository reads a range's days (rows joined by commas). */
const textOf = (rows: readonly [number, number][][]) =>
  rows
    .map((row) => row.map(([bin, count]) => `${bin}:${count}`).join(','))
    .filter((text) => text !== '')
    .join(',');

const QS = [0.5, 0.95];

describe('quantilesOfText', () => {
  it.each([
    ['no durations', []],
    ['one duration', [[[binOf(120), 1]]]],
    ['a zero duration', [[[0, 3]], [[binOf(5), 1]]]],
    [
      'two days whose bins overlap',
      [
        [
          [binOf(10), 2],
          [binOf(20), 5],
        ],
        [
          [binOf(10), 1],
          [binOf(15), 4],
          [binOf(20), 1],
        ],
      ],
    ],
    [
      'negative bins (values below zero) beside positive ones',
      [
        [
          [-binOf(3), 2],
          [0, 1],
          [binOf(3), 2],
        ],
      ],
    ],
    [
      'a rank that falls on the last entry',
      [
        [
          [binOf(1), 19],
          [binOf(1000), 1],
        ],
      ],
    ],
  ] as [string, [number, number][][]][])('%s', (_name, rows) => {
    const text = textOf(rows);
    expect(quantilesOfText(text, QS)).toEqual(QS.map((q) => expected(rows, q)));
  });

  it('equals the definition on 500 random ranges of days', () => {
    const random = seededRandom(25);
    for (let trial = 0; trial < 500; trial++) {
      const rows: [number, number][][] = [];
      const days = 1 + Math.floor(random() * 30);
      for (let d = 0; d < days; d++) {
        const row = new Map<number, number>();
        const results = Math.floor(random() * 40);
        for (let r = 0; r < results; r++) {
          // Durations from 0 to about 10 minutes, with a heavy tail.
          const bin = binOf(Math.floor(random() ** 3 * 600_000));
          row.set(bin, (row.get(bin) ?? 0) + 1);
        }
        rows.push([...row].sort((a, b) => a[0] - b[0]));
      }
      const qs = [0.01, 0.5, 0.9, 0.95, 0.99, 1];
      expect(quantilesOfText(textOf(rows), qs)).toEqual(qs.map((q) => expected(rows, q)));
    }
  });

  it('takes the slow way for what is never stored, with the same answer (a negative count)', () => {
    const text = `${binOf(10)}:3,${binOf(20)}:-1,${binOf(30)}:2`;
    // Three at 10, one taken out at 20, two at 30: n = 4 by the counts, ranks over 10,10,10,30.
    expect(quantilesOfText(text, [0.5, 1])).toEqual([valueOfBin(binOf(10)), valueOfBin(binOf(30))]);
  });

  it('gives figuresOf and p50Of their percentiles, rounded to the millisecond', () => {
    const rows: [number, number][][] = [
      [
        [binOf(100), 10],
        [binOf(900), 1],
      ],
      [[binOf(120), 9]],
    ];
    const bins = textOf(rows);
    const figures = figuresOf({
      testId: 1,
      runs: 20,
      passed: 20,
      failed: 0,
      skipped: 0,
      retried: 0,
      bins,
    });
    expect(figures.p50Ms).toBe(Math.round(expected(rows, 0.5) as number));
    expect(figures.p95Ms).toBe(Math.round(expected(rows, 0.95) as number));
    expect(p50Of(bins)).toBe(figures.p50Ms);
    expect(p50Of('')).toBeNull();
  });
});
