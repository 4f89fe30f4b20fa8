import { bestSplit } from './energy.js';
import { intervalRanks } from './interval-ranks.js';
import type { ResolvedOptions } from './options.js';
import { splitPValue } from './significance.js';

/** A split kept: the first index of the new level, and its significance. */
export interface Division {
  index: number;
  p_value: number;
}

interface Interval {
  start: number;
  end: number;
  candidate?: { index: number; qhat: number; p_value: number };
}

function withCandidate(
  series: readonly number[],
  interval: Interval,
  options: ResolvedOptions,
  leastSplits: number,
) {
  const { start, end } = interval;
  if (end - start < 2 * options.min_segment) return interval;
  const ranks = intervalRanks(series, start, end);
  const split = bestSplit(ranks, options.min_segment);
  if (split) {
    const splits = Math.max(leastSplits, end - start - 2 * options.min_segment + 1);
    const p_value = splitPValue(ranks, split.left, splits);
    interval.candidate = { index: start + split.left, qhat: split.qhat, p_value };
  }
  return interval;
}

/**
 * Divisive bisection of series[start, end): each interval's best split by q̂; of the significant
 * candidates, the one with the largest q̂ splits its interval, and both halves get their own
 * candidate; until no candidate is significant. Each round costs O(m log m) for the m values of
 * the interval just split; the result is sorted by index.
 */
export function divide(
  series: readonly number[],
  start: number,
  end: number,
  options: ResolvedOptions,
  leastSplits = 1,
): Division[] {
  const intervals = [withCandidate(series, { start, end }, options, leastSplits)];
  const divisions: Division[] = [];
  for (;;) {
    let chosen = -1;
    intervals.forEach((interval, i) => {
      const candidate = interval.candidate;
      if (!candidate || candidate.p_value > options.p_value) return;
      const best = intervals[chosen]?.candidate;
      if (!best || candidate.qhat > best.qhat) chosen = i;
    });
    if (chosen < 0) break;
    const interval = intervals[chosen] as Interval;
    const candidate = interval.candidate as NonNullable<Interval['candidate']>;
    divisions.push({ index: candidate.index, p_value: candidate.p_value });
    intervals.splice(
      chosen,
      1,
      withCandidate(series, { start: interval.start, end: candidate.index }, options, leastSplits),
      withCandidate(series, { start: candidate.index, end: interval.end }, options, leastSplits),
    );
  }
  return divisions.sort((a, b) => a.index - b.index);
}
