/**
 * Synthetic series for change-point quality: Gaussian noise of 5 % around a level that steps by
 * 10 %–50 % at known points, with outliers, all from a seeded generator (mulberry32 and
 * Box–Muller), so every run of the tests and benchmarks sees the same numbers.
 */

/** mulberry32: a small, well-mixed 32-bit generator; uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal draws (Box–Muller) from a uniform generator. */
export function gaussian(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

export interface SeriesSpec {
  seed: number;
  length: number;
  /** How many steps, spread evenly with a jitter of ± a quarter of their spacing. */
  steps: number;
  /** Relative size of each step, drawn uniformly from [min, max], up or down at random. */
  minChange?: number;
  maxChange?: number;
  /** Standard deviation of the noise, relative to the level. */
  noise?: number;
  /** Share of values that are outliers: the value times a factor drawn from [1.3, 2] (a slow run). */
  outliers?: number;
  /** Level at the start. */
  level?: number;
}

export interface SyntheticSeries {
  values: number[];
  /** Index of the first value of each new level, and the relative step there. */
  steps: { index: number; change: number }[];
  /** Indices of the outliers. */
  outliers: number[];
}

export function syntheticSeries(spec: SeriesSpec): SyntheticSeries {
  const random = seededRandom(spec.seed);
  const normal = gaussian(random);
  const { length, minChange = 0.1, maxChange = 0.5, noise = 0.05, outliers: rate = 0 } = spec;
  const spacing = length / (spec.steps + 1);
  const steps = Array.from({ length: spec.steps }, (_, i) => ({
    index: Math.round(spacing * (i + 1) + (random() - 0.5) * 0.5 * spacing),
    change: (minChange + random() * (maxChange - minChange)) * (random() < 0.5 ? -1 : 1),
  }));
  const values: number[] = [];
  const outliers: number[] = [];
  let level = spec.level ?? 100;
  let next = 0;
  for (let i = 0; i < length; i++) {
    const step = steps[next];
    if (step && step.index === i) {
      level *= 1 + step.change;
      next++;
    }
    let value = level * (1 + noise * normal());
    if (random() < rate) {
      value *= 1.3 + 0.7 * random();
      outliers.push(i);
    }
    values.push(value);
  }
  return { values, steps, outliers };
}
