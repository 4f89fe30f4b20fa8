import type { IntervalRanks } from './interval-ranks.js';

/**
 * The energy statistic of E-Divisive Means (Matteson & James 2014, as MongoDB's CI uses it, with
 * α = 1): for a split of an interval at τ into X (the first n values) and Y (the other m),
 *
 *   Ê(X, Y) = 2/(nm)·Σ|xᵢ − yⱼ| − 2/(n(n − 1))·Σᵢ<ₖ|xᵢ − xₖ| − 2/(m(m − 1))·Σⱼ<ₖ|yⱼ − yₖ|
 *   q̂(τ)    = nm/(n + m) · Ê(X, Y)
 *
 * and the split that maximises q̂. The within-sums of every prefix and suffix come from one sweep
 * each way with Fenwick trees over the values' ranks (how many values below, and their sum), and
 * the between-sum is the interval's total minus both: O(m log m) for all splits of m values,
 * where summing each split's pairs directly would cost O(m²) per split.
 */

/** The best split of an interval: how many values its left part has, and its q̂. */
export interface Split {
  left: number;
  qhat: number;
}

/** Σ |xᵢ − xⱼ| over the pairs of the first k values taken in sweep order, for k = 0 … length. */
function pairSums(ranks: IntervalRanks, reverse: boolean): Float64Array {
  const { values, slot } = ranks;
  const length = values.length;
  const counts = new Float64Array(length + 1);
  const sums = new Float64Array(length + 1);
  const result = new Float64Array(length + 1);
  let total = 0;
  let seenSum = 0;
  for (let k = 0; k < length; k++) {
    const i = reverse ? length - 1 - k : k;
    const x = values[i] as number;
    const r = slot[i] as number;
    // Values seen so far in a slot at most r (equal values included: they add 0 either way).
    let below = 0;
    let belowSum = 0;
    for (let j = r; j > 0; j -= j & -j) {
      below += counts[j] as number;
      belowSum += sums[j] as number;
    }
    total += x * below - belowSum + (seenSum - belowSum) - x * (k - below);
    result[k + 1] = total;
    for (let j = r; j <= length; j += j & -j) {
      counts[j] = (counts[j] as number) + 1;
      sums[j] = (sums[j] as number) + x;
    }
    seenSum += x;
  }
  return result;
}

/** The split maximising q̂ with at least minSegment values each side; undefined if none fits. */
export function bestSplit(ranks: IntervalRanks, minSegment: number): Split | undefined {
  const length = ranks.values.length;
  if (length < 2 * minSegment) return undefined;
  const prefix = pairSums(ranks, false);
  const suffix = pairSums(ranks, true);
  const total = prefix[length] as number;
  let best: Split | undefined;
  for (let n = minSegment; n <= length - minSegment; n++) {
    const m = length - n;
    const withinX = prefix[n] as number;
    const withinY = suffix[m] as number;
    const between = total - withinX - withinY;
    const energy =
      (2 * between) / (n * m) - (2 * withinX) / (n * (n - 1)) - (2 * withinY) / (m * (m - 1));
    const qhat = ((n * m) / (n + m)) * energy;
    if (!best || qhat > best.qhat) best = { left: n, qhat };
  }
  return best;
}
