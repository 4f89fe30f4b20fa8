/**
 * Which threshold judges a key on a branch (docs/verdicts.md): a threshold's key is an exact key
 * or a glob (`*` stands for any run of characters, `bench/*`), its branch a name or `*`. Of those
 * that match, the most specific wins: an exact key over a glob, then a named branch over `*`,
 * then the glob with more literal characters, then the oldest.
 */
export interface ThresholdScope {
  key: string;
  branch: string;
}

export const isGlob = (pattern: string): boolean => pattern.includes('*');

/** Whether `key` matches `pattern` (`*`: any run of characters, possibly empty). */
export function keyMatches(pattern: string, key: string): boolean {
  if (!isGlob(pattern)) return pattern === key;
  const parts = pattern.split('*');
  const first = parts[0] as string;
  const last = parts.at(-1) as string;
  if (!key.startsWith(first) || key.length < first.length + last.length || !key.endsWith(last)) {
    return false;
  }
  // The middle parts in order, each after the previous one, within the ends.
  let at = first.length;
  const end = key.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = key.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

const specificity = (t: ThresholdScope): [number, number, number] => [
  isGlob(t.key) ? 0 : 1,
  t.branch === '*' ? 0 : 1,
  t.key.replaceAll('*', '').length,
];

/** The most specific of `thresholds` (in creation order) matching the key and branch. */
export function matchThreshold<T extends ThresholdScope>(
  thresholds: readonly T[],
  key: string,
  branch: string,
): T | undefined {
  let best: T | undefined;
  let bestRank: [number, number, number] | undefined;
  for (const threshold of thresholds) {
    if (threshold.branch !== '*' && threshold.branch !== branch) continue;
    if (!keyMatches(threshold.key, key)) continue;
    const rank = specificity(threshold);
    if (!bestRank || compareRanks(rank, bestRank) > 0) {
      best = threshold;
      bestRank = rank;
    }
  }
  return best;
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i += 1) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}
