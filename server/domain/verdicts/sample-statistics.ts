/** The sample statistics the tests share. Every function takes a non-empty array of finite numbers. */

export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** The sample standard deviation (divisor n − 1); NaN for fewer than two values. */
export function sampleStandardDeviation(values: readonly number[], centre = mean(values)): number {
  if (values.length < 2) return Number.NaN;
  let squares = 0;
  for (const value of values) squares += (value - centre) ** 2;
  return Math.sqrt(squares / (values.length - 1));
}

/**
 * The q-quantile (0 ≤ q ≤ 1) of ascending values by linear interpolation at rank q·(n − 1):
 * between the values at ⌊rank⌋ and ⌊rank⌋ + 1, in proportion to the fraction of the rank.
 */
export function interpolatedQuantile(sorted: readonly number[], q: number): number {
  const rank = q * (sorted.length - 1);
  const below = Math.floor(rank);
  const low = sorted[below] as number;
  if (below + 1 >= sorted.length) return low;
  return low + (rank - below) * ((sorted[below + 1] as number) - low);
}

export interface Quartiles {
  q1: number;
  median: number;
  q3: number;
}

export function quartiles(values: readonly number[]): Quartiles {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    q1: interpolatedQuantile(sorted, 0.25),
    median: interpolatedQuantile(sorted, 0.5),
    q3: interpolatedQuantile(sorted, 0.75),
  };
}

/**
 * |xᵢ₊₁ − xᵢ| / |xᵢ| for each pair of consecutive values, oldest first; a pair that starts at zero
 * has no relative change and is left out.
 */
export function relativeChanges(values: readonly number[]): number[] {
  const changes: number[] = [];
  for (let i = 0; i + 1 < values.length; i++) {
    const from = values[i] as number;
    if (from === 0) continue;
    changes.push(Math.abs((values[i + 1] as number) - from) / Math.abs(from));
  }
  return changes;
}
