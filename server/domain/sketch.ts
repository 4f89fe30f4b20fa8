/**
 * Percentiles within 2 %: a DDSketch-style histogram. Each value falls in a logarithmic bin whose
 * every member is within 2 % of the bin's representative value, so a quantile read from bin
 * counts is within 2 % of the exact one. Bins merge by adding counts, so per-minute and per-hour
 * histograms add up to any range's.
 */
const ALPHA = 0.02;
const GAMMA = (1 + ALPHA) / (1 - ALPHA);
const LOG_GAMMA = Math.log(GAMMA);
/** Bin numbers stay positive for |v| >= 1e-300: 1e-300 is bin -17 250 before the offset. */
const OFFSET = 20_000;
/** Below this, a value counts as zero (bin 0). */
const ZERO = 1e-300;

/** The bin of a value: 0 for zero, positive for positive values, negative for negative ones. */
export function binOf(value: number): number {
  const magnitude = Math.abs(value);
  if (magnitude < ZERO) return 0;
  const index = Math.ceil(Math.log(magnitude) / LOG_GAMMA) + OFFSET;
  return value > 0 ? index : -index;
}

/** The value a bin stands for: within 2 % of every value in it. */
export function valueOfBin(bin: number): number {
  if (bin === 0) return 0;
  const index = Math.abs(bin) - OFFSET;
  const magnitude = (2 * GAMMA ** index) / (GAMMA + 1);
  return bin > 0 ? magnitude : -magnitude;
}

/** Counts per bin. */
export type Bins = Map<number, number>;

export function addBins(into: Bins, from: Iterable<[number, number]>): void {
  for (const [bin, count] of from) into.set(bin, (into.get(bin) ?? 0) + count);
}

/**
 * The q-quantile (0 < q ≤ 1) of the values counted, nearest-rank: the representative of the bin
 * holding x[⌈q·n⌉ − 1] of the n values in ascending order, so within 2 % of that value.
 */
export function quantile(bins: Bins, q: number): number | null {
  let total = 0;
  for (const count of bins.values()) total += count;
  if (total === 0) return null;
  // 0-based; ⌈q·n⌉ ≥ 1 for q > 0. (For q = 0.95 and every n up to 100,000 the product rounds to
  // the exact ⌈95n/100⌉, checked.)
  const rank = Math.max(0, Math.ceil(q * total) - 1);
  // Bin numbers ascend with the values they stand for (the most negative value has the most
  // negative bin, zero is 0), so ascending bins are ascending values.
  const ordered = [...bins.keys()].sort((a, b) => a - b);
  let seen = 0;
  for (const bin of ordered) {
    seen += bins.get(bin) as number;
    if (seen > rank) return valueOfBin(bin);
  }
  return valueOfBin(ordered.at(-1) as number);
}

/** Bins as stored: little-endian float64 pairs [bin, count] (a tenth of JSON's decoding time). */
export function encodeBins(bins: Bins): Uint8Array {
  const bytes = new Uint8Array(bins.size * 16);
  const view = new DataView(bytes.buffer);
  let at = 0;
  for (const [bin, count] of bins) {
    view.setFloat64(at, bin, true);
    view.setFloat64(at + 8, count, true);
    at += 16;
  }
  return bytes;
}

export function decodeBins(bytes: Uint8Array): [number, number][] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pairs: [number, number][] = [];
  for (let at = 0; at + 16 <= bytes.byteLength; at += 16) {
    pairs.push([view.getFloat64(at, true), view.getFloat64(at + 8, true)]);
  }
  return pairs;
}
