import { describe, expect, it } from 'vitest';
import { type SeriesSpec, syntheticSeries } from '../../../bench/synthetic-series.js';
import {
  type ChangePoint,
  type ChangePointOptions,
  type ChangePointState,
  detectChangePoints,
  initialChangePointState,
  updateChangePoints,
} from '../../../server/domain/verdicts/index.js';
import { matchOnSeeds } from './step-matching.js';

const repeat = (value: number, count: number) => Array.from({ length: count }, () => value);

/** What a caller does: keeps its change points, replacing those at index ≥ from at each update. */
function stream(values: readonly number[], batch = 1, options: ChangePointOptions = {}) {
  let state: ChangePointState = initialChangePointState();
  let held: ChangePoint[] = [];
  let largestWindow = 0;
  for (let at = 0; at < values.length; at += batch) {
    const update = updateChangePoints(state, values.slice(at, at + batch), options);
    state = update.state;
    held = [...held.filter((p) => p.index < update.from), ...update.change_points];
    largestWindow = Math.max(largestWindow, state.values.length);
  }
  return { state, held, largestWindow };
}

describe('updateChangePoints', () => {
  it('one batch within the window finds what a full detection finds (p-values stricter)', () => {
    const values = [...repeat(10, 40), ...repeat(14, 40), ...repeat(9, 40)];
    const { held } = stream(values, values.length);
    const full = detectChangePoints(values);
    const withoutP = ({ p_value: _, ...rest }: ChangePoint) => rest;
    expect(held.map(withoutP)).toEqual(full.map(withoutP));
    held.forEach((point, i) => {
      expect(point.p_value).toBeGreaterThanOrEqual(full[i]?.p_value as number);
    });
  });

  it('never holds more than `window` values, and a batch longer than the window misses nothing', () => {
    const values = [...repeat(10, 300), ...repeat(20, 300), ...repeat(10, 300), ...repeat(30, 300)];
    const options = { window: 200 };
    const oneByOne = stream(values, 1, options);
    expect(oneByOne.largestWindow).toBeLessThanOrEqual(200);
    expect(oneByOne.held.map((p) => p.index)).toEqual([300, 600, 900]);
    const batch = stream(values, values.length, options);
    expect(batch.largestWindow).toBeLessThanOrEqual(200);
    expect(batch.held.map((p) => p.index)).toEqual([300, 600, 900]);
  });

  it('a level longer than the window keeps its exact mean (the dropped values are counted)', () => {
    const level = Array.from({ length: 700 }, (_, i) => 20 + (i % 3));
    const values = [...repeat(10, 50), ...level, ...repeat(40, 60)];
    const { held, state } = stream(values, 1, { window: 100 });
    expect(state.values.length).toBeLessThanOrEqual(100);
    const levelMean = level.reduce((a, b) => a + b, 0) / level.length;
    expect(held.map((p) => p.index)).toEqual([50, 750]);
    expect(held[0]?.after_mean).toBeCloseTo(levelMean, 12);
    expect(held[1]?.before_mean).toBeCloseTo(levelMean, 12);
    expect(held[1]?.after_mean).toBe(40);
  });

  it('settled change points are never revised; the state survives JSON; the input state is left alone', () => {
    const series = syntheticSeries({ seed: 7, length: 600, steps: 5, outliers: 0.02 });
    let state = initialChangePointState();
    const settledSeen = new Map<number, string>();
    for (const [i, value] of series.values.entries()) {
      const frozen = structuredClone(state);
      const update = updateChangePoints(state, [value]);
      expect(state).toEqual(frozen);
      // Everything before `from` is final: what was reported there must never change.
      for (const point of update.change_points) {
        if (point.index < update.from) throw new Error('a change point before from');
      }
      if (update.state.anchor) {
        const seen = settledSeen.get(update.state.anchor.index);
        if (seen === undefined)
          settledSeen.set(update.state.anchor.index, update.state.anchor.before_mean.toString());
        else expect(update.state.anchor.before_mean.toString()).toBe(seen);
      }
      state = i === 300 ? JSON.parse(JSON.stringify(update.state)) : update.state;
    }
    expect(settledSeen.size).toBeGreaterThanOrEqual(3);
  });

  it('no new values: the current change points, nothing moves', () => {
    const values = [...repeat(5, 30), ...repeat(8, 10)];
    const first = updateChangePoints(initialChangePointState(), values);
    const again = updateChangePoints(first.state, []);
    expect(again.change_points).toEqual(first.change_points);
    expect(again.state).toEqual(first.state);
  });
});

describe('updateChangePoints one value at a time on synthetic series (seeded)', () => {
  const streamed = (spec: Omit<SeriesSpec, 'seed'>) =>
    matchOnSeeds(spec, (values) => stream(values).held.map((p) => p.index));

  it('four steps of 10–50 % in 500 values with outliers: every step found, ≥ 95 % within ±2', () => {
    const match = streamed({ length: 500, steps: 4, outliers: 0.02 });
    expect(match.withinFive).toBe(match.steps);
    expect(match.withinTwo).toBeGreaterThanOrEqual(0.95 * match.steps);
    expect(match.falseAlarms).toBeLessThanOrEqual(1);
  });

  it.each([0, 0.02])(
    'pure noise, 500 values, outliers %f: at most one change point in 20 runs',
    (outliers) => {
      expect(streamed({ length: 500, steps: 0, outliers }).falseAlarms).toBeLessThanOrEqual(1);
    },
  );
});
