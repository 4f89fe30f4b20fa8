import { writeFileSync } from 'node:fs';
import { bestSplit } from '../server/domain/verdicts/change-points/energy.js';
import { intervalRanks } from '../server/domain/verdicts/change-points/interval-ranks.js';
import {
  type ChangePoint,
  type ChangePointState,
  detectChangePoints,
  initialChangePointState,
  updateChangePoints,
} from '../server/domain/verdicts/index.js';
import { median } from './median.js';
import { type SeriesSpec, syntheticSeries } from './synthetic-series.js';

/**
 * Scenario `verdicts` of `npm run bench`: change points of one series of 10,000 values (the
 * target: ≤ 100 ms), beside a naive O(n²) scan of the energy statistic; the cost of one new value
 * in incremental mode; and detection quality on seeded synthetic series (bench/synthetic-series.ts),
 * which BENCH_CHANGE_POINTS_EXPORT=<file> also writes out for bench/otava-compare.py.
 */

const TIMING_RUNS = Number(process.env.BENCH_CHANGE_POINT_RUNS ?? 21);
const QUALITY_SEEDS = Number(process.env.BENCH_CHANGE_POINT_SEEDS ?? 200);
const STREAM_SEEDS = Number(process.env.BENCH_CHANGE_POINT_STREAM_SEEDS ?? 50);

/** q̂ of every split of series[0, n) by summing each new value's distances to all before it: O(n²). */
function naiveScan(values: readonly number[], minSegment: number) {
  const n = values.length;
  const pairs = (order: readonly number[]) => {
    const sums = new Float64Array(n + 1);
    for (let k = 0; k < n; k++) {
      let add = 0;
      const x = values[order[k] as number] as number;
      for (let i = 0; i < k; i++) add += Math.abs((values[order[i] as number] as number) - x);
      sums[k + 1] = (sums[k] as number) + add;
    }
    return sums;
  };
  const forward = Array.from({ length: n }, (_, i) => i);
  const prefix = pairs(forward);
  const suffix = pairs(forward.reverse());
  let best = { left: -1, qhat: Number.NEGATIVE_INFINITY };
  for (let left = minSegment; left <= n - minSegment; left++) {
    const m = n - left;
    const between = (prefix[n] as number) - (prefix[left] as number) - (suffix[m] as number);
    const energy =
      (2 * between) / (left * m) -
      (2 * (prefix[left] as number)) / (left * (left - 1)) -
      (2 * (suffix[m] as number)) / (m * (m - 1));
    const qhat = ((left * m) / n) * energy;
    if (qhat > best.qhat) best = { left, qhat };
  }
  return best;
}

function milliseconds(run: () => unknown, runs: number) {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  return Number(median(samples).toFixed(2));
}

function stream(values: readonly number[]) {
  let state: ChangePointState = initialChangePointState();
  let held: ChangePoint[] = [];
  for (const value of values) {
    const update = updateChangePoints(state, [value]);
    state = update.state;
    held = [...held.filter((p) => p.index < update.from), ...update.change_points];
  }
  return held;
}

interface Quality {
  series: number;
  steps: number;
  withinTwo: number;
  withinFive: number;
  falseAlarms: number;
  seriesWithFalseAlarms: number;
}

function quality(seeds: number, spec: Omit<SeriesSpec, 'seed'>, detect: (v: number[]) => number[]) {
  const total: Quality = {
    series: 0,
    steps: 0,
    withinTwo: 0,
    withinFive: 0,
    falseAlarms: 0,
    seriesWithFalseAlarms: 0,
  };
  for (let seed = 1; seed <= seeds; seed++) {
    const series = syntheticSeries({ seed, ...spec });
    const found = detect(series.values);
    const distance = (index: number) => Math.min(...found.map((c) => Math.abs(c - index)));
    const falseAlarms = found.filter((c) =>
      series.steps.every((s) => Math.abs(s.index - c) > 5),
    ).length;
    total.series++;
    total.steps += series.steps.length;
    total.withinTwo += series.steps.filter((s) => distance(s.index) <= 2).length;
    total.withinFive += series.steps.filter((s) => distance(s.index) <= 5).length;
    total.falseAlarms += falseAlarms;
    total.seriesWithFalseAlarms += falseAlarms > 0 ? 1 : 0;
  }
  return total;
}

/** The synthetic scenarios, as the tests state them (5 % noise, 2 % outliers ×1.3–2). */
export const QUALITY_SCENARIOS: Record<string, Omit<SeriesSpec, 'seed'>> = {
  'pure noise, 500 values': { length: 500, steps: 0 },
  'pure noise with outliers, 500 values': { length: 500, steps: 0, outliers: 0.02 },
  '4 steps of 10–50 % with outliers, 500 values': { length: 500, steps: 4, outliers: 0.02 },
  '10 steps of 10–50 % with outliers, 500 values': { length: 500, steps: 10, outliers: 0.02 },
  '1 step of exactly 10 % with outliers, 200 values': {
    length: 200,
    steps: 1,
    minChange: 0.1,
    maxChange: 0.1,
    outliers: 0.02,
  },
  '1 step of exactly 20 % with outliers, 200 values': {
    length: 200,
    steps: 1,
    minChange: 0.2,
    maxChange: 0.2,
    outliers: 0.02,
  },
};

export function changePointScenario() {
  const big = syntheticSeries({ seed: 1, length: 10_000, steps: 20, outliers: 0.02 });
  const noise = syntheticSeries({ seed: 2, length: 10_000, steps: 0, outliers: 0.02 });
  // Warm up the JIT before timing anything.
  for (let i = 0; i < 3; i++) detectChangePoints(big.values);
  const timings = {
    fullWithSteps: milliseconds(() => detectChangePoints(big.values), TIMING_RUNS),
    found: detectChangePoints(big.values).length,
    fullNoise: milliseconds(() => detectChangePoints(noise.values), TIMING_RUNS),
    oneScan: milliseconds(() => bestSplit(intervalRanks(big.values, 0, 10_000), 3), TIMING_RUNS),
    naiveScan: milliseconds(() => naiveScan(big.values, 3), 3),
    sameSplit:
      naiveScan(big.values, 3).left === bestSplit(intervalRanks(big.values, 0, 10_000), 3)?.left,
  };
  let state = initialChangePointState();
  state = updateChangePoints(state, noise.values.slice(0, 500)).state;
  let next = 500;
  const perValue = milliseconds(() => {
    state = updateChangePoints(state, [noise.values[next++ % 10_000] as number]).state;
  }, 1000);
  const streamStart = performance.now();
  stream(big.values);
  const streamPerValue = Number(((performance.now() - streamStart) / 10_000).toFixed(3));

  const qualityRows = Object.entries(QUALITY_SCENARIOS).map(([name, spec]) => ({
    name,
    full: quality(QUALITY_SEEDS, spec, (v) => detectChangePoints(v).map((p) => p.index)),
    incremental: quality(STREAM_SEEDS, spec, (v) => stream(v).map((p) => p.index)),
  }));

  const exportTo = process.env.BENCH_CHANGE_POINTS_EXPORT;
  if (exportTo) {
    const series = Object.entries(QUALITY_SCENARIOS).flatMap(([name, spec]) =>
      Array.from({ length: QUALITY_SEEDS }, (_, i) => {
        const s = syntheticSeries({ seed: i + 1, ...spec });
        return {
          scenario: name,
          seed: i + 1,
          values: s.values,
          steps: s.steps.map((x) => x.index),
        };
      }),
    );
    writeFileSync(exportTo, JSON.stringify({ series, long: big.values }));
  }

  const row = (q: Quality) =>
    `${q.withinTwo}/${q.steps} | ${q.withinFive}/${q.steps} | ${q.falseAlarms} (${q.seriesWithFalseAlarms} of ${q.series} series)`;
  const report = [
    '',
    '### Change points (scenario `verdicts`)',
    '',
    `Medians of ${TIMING_RUNS} runs (the naive scan: of 3), one core, in-process.`,
    '',
    '| Work | ms |',
    '|---|---:|',
    `| Full detection, 10,000 values with 20 steps and 2 % outliers (${timings.found} change points found) | ${timings.fullWithSteps} |`,
    `| Full detection, 10,000 values of noise with 2 % outliers (none found) | ${timings.fullNoise} |`,
    `| One scan of q̂ over every split of the 10,000 values: Fenwick sweeps, O(n log n) | ${timings.oneScan} |`,
    `| The same scan, naive O(n²) (reference; same split: ${timings.sameSplit}) | ${timings.naiveScan} |`,
    `| Incremental: one new value, window full (500 values) | ${perValue} |`,
    `| Incremental: the 10,000 values with steps fed one at a time, per value | ${streamPerValue} |`,
    '',
    `Quality: ${QUALITY_SEEDS} seeded series per row for the full detection, ${STREAM_SEEDS} fed one value at a time for the incremental one.`,
    '',
    '| Series | full: within ±2 | full: within ±5 | full: false alarms | incremental: within ±2 | incremental: within ±5 | incremental: false alarms |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...qualityRows.map((r) => `| ${r.name} | ${row(r.full)} | ${row(r.incremental)} |`),
  ];
  return { report, results: { timings, perValue, streamPerValue, quality: qualityRows } };
}
