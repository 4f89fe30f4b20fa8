import { type SeriesSpec, syntheticSeries } from '../../../bench/synthetic-series.js';

/** How detected change points match the known steps of a synthetic series. */
export interface Match {
  steps: number;
  /** Steps with a change point within ±2 values. */
  withinTwo: number;
  /** Steps with a change point within ±5 values. */
  withinFive: number;
  /** Change points more than 5 values from every step. */
  falseAlarms: number;
}

export function matchSteps(steps: readonly { index: number }[], found: readonly number[]): Match {
  const distance = (index: number) => Math.min(...found.map((c) => Math.abs(c - index)));
  return {
    steps: steps.length,
    withinTwo: steps.filter((step) => distance(step.index) <= 2).length,
    withinFive: steps.filter((step) => distance(step.index) <= 5).length,
    falseAlarms: found.filter((c) => steps.every((step) => Math.abs(step.index - c) > 5)).length,
  };
}

export function addMatches(matches: readonly Match[]): Match {
  return matches.reduce(
    (total, match) => ({
      steps: total.steps + match.steps,
      withinTwo: total.withinTwo + match.withinTwo,
      withinFive: total.withinFive + match.withinFive,
      falseAlarms: total.falseAlarms + match.falseAlarms,
    }),
    { steps: 0, withinTwo: 0, withinFive: 0, falseAlarms: 0 },
  );
}

/** The seeds of the quality tests. */
export const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);

/** A detector's matches on the synthetic series of seeds 1–20, added up. */
export function matchOnSeeds(
  spec: Omit<SeriesSpec, 'seed'>,
  detect: (values: readonly number[]) => number[],
): Match {
  return addMatches(
    SEEDS.map((seed) => {
      const series = syntheticSeries({ seed, ...spec });
      return matchSteps(series.steps, detect(series.values));
    }),
  );
}
