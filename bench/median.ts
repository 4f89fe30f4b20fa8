/**
 * The nearest-rank percentile of some samples (`q` from 0 to 1): the smallest value with at least
 * a share `q` of them at or below it, as the server's own percentiles (domain/tests/test-analysis.ts).
 */
export const nearestRank = (values: readonly number[], q: number): number => {
  if (values.length === 0) throw new Error('no samples to take a percentile of');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] as number;
};

/** The median of some samples (the mean of the middle two for an even count). */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
