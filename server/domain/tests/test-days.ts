import { type Bins, binOf, quantile, valueOfBin } from '../sketch.js';
import { EVERY_BRANCH } from './test-recent.js';
import { isFailure, passedOnRetry } from './test-status.js';

/**
 * Per test, branch (and every branch: EVERY_BRANCH) and UTC day of its runs, kept as results are
 * stored (`test_days`, docs/tests.md "Kept per day"): the results' counts and a histogram of the
 * durations of those not skipped, in the 2 % bins of domain/sketch.ts. The failing, slowest and
 * by-name lists, and the Tests view's previous period, read a range's days instead of its
 * results: their figures are over whole days, their percentiles within 2 % (docs/decisions.md,
 * "Kept per day").
 */
export const DAY_MS = 24 * 60 * 60 * 1000;

/** A run's day: its time's UTC day, counted from 1970-01-01. */
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** What results add to a day row (negative for a result replaced by its merge with a later batch). */
export interface DayCounts {
  runs: number;
  passed: number;
  /** Failed or errored. */
  failed: number;
  skipped: number;
  retried: number;
  /** `bin:count` entries by ascending bin, comma-separated ('' when none). */
  bins: string;
}

export interface ResultShape {
  status: number;
  durationMs: number;
  attempts: number;
}

export const formatBins = (bins: Bins) =>
  [...bins.entries()]
    .filter(([, count]) => count !== 0)
    .sort((a, b) => a[0] - b[0])
    .map(([bin, count]) => `${bin}:${count}`)
    .join(',');

/** Adds `text`'s entries to `into` (a concatenation of several rows' bins is fine). */
export function addBinsText(into: Bins, text: string | null): Bins {
  if (text === null || text === '') return into;
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf(',', at);
    if (end === -1) end = text.length;
    const colon = text.indexOf(':', at);
    const bin = Number(text.slice(at, colon));
    into.set(bin, (into.get(bin) ?? 0) + Number(text.slice(colon + 1, end)));
    at = end + 1;
  }
  return into;
}

/** Two rows' bins added (entries that reach 0 dropped): SQLite's `test_bins_add`. */
export const binsAdd = (a: string | null, b: string | null) =>
  formatBins(addBinsText(addBinsText(new Map(), a), b));

/** What a set of results (one per test) adds, `sign` -1 to take them out. */
function accumulate(
  into: Map<number, { counts: Omit<DayCounts, 'bins'>; bins: Bins }>,
  testId: number,
  r: ResultShape,
  sign: 1 | -1,
) {
  const entry = into.get(testId) ?? {
    counts: { runs: 0, passed: 0, failed: 0, skipped: 0, retried: 0 },
    bins: new Map<number, number>(),
  };
  const c = entry.counts;
  c.runs += sign;
  if (r.status === 3) c.skipped += sign;
  else {
    if (isFailure(r.status)) c.failed += sign;
    else c.passed += sign;
    if (passedOnRetry(r.status, r.attempts)) c.retried += sign;
    const bin = binOf(r.durationMs);
    entry.bins.set(bin, (entry.bins.get(bin) ?? 0) + sign);
  }
  into.set(testId, entry);
}

export interface DayChange {
  testId: number;
  /** The result before this batch (a test already in the run), if any. */
  before?: ResultShape | undefined;
  after: ResultShape;
}

export interface DayRowChange extends DayCounts {
  testId: number;
  branch: string;
}

/**
 * The day rows' changes of a batch of one run: every branch's row (and the run's branch's) take
 * each result's change (a merged result: its old contribution out, its new one in). A run that
 * names its branch only now (`named`: all its results, after the batch) adds all of them to the
 * branch's rows, which had none of them.
 */
export function dayChanges(
  branch: string | null,
  changes: readonly DayChange[],
  named: readonly { testId: number; after: ResultShape }[] | null,
): DayRowChange[] {
  const rows: DayRowChange[] = [];
  const emit = (b: string, map: Map<number, { counts: Omit<DayCounts, 'bins'>; bins: Bins }>) => {
    for (const [testId, { counts, bins }] of map) {
      rows.push({ testId, branch: b, ...counts, bins: formatBins(bins) });
    }
  };
  const delta = new Map<number, { counts: Omit<DayCounts, 'bins'>; bins: Bins }>();
  for (const c of changes) {
    if (c.before) accumulate(delta, c.testId, c.before, -1);
    accumulate(delta, c.testId, c.after, 1);
  }
  emit(EVERY_BRANCH, delta);
  if (branch !== null) {
    if (named === null) emit(branch, delta);
    else {
      const full = new Map<number, { counts: Omit<DayCounts, 'bins'>; bins: Bins }>();
      for (const c of named) accumulate(full, c.testId, c.after, 1);
      emit(branch, full);
    }
  }
  return rows;
}

/** A test's days of a range added up, as the repository reads them (the days' bins concatenated). */
export interface DaySums extends DayCounts {
  testId: number;
}

export interface DayFigures {
  testId: number;
  runs: number;
  passed: number;
  failed: number;
  skipped: number;
  retried: number;
  failureRate: number | null;
  /** Nearest-rank percentiles from the histogram: within 2 %, rounded to the millisecond. */
  p50Ms: number | null;
  p95Ms: number | null;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const ms = (value: number | null) => (value === null ? null : Math.round(value));

/** A bin (|bin| < 2^20: sketch.ts's reach under 40,000) packed above its count, so numbers sort by bin. */
const BIN_SHIFT = 2 ** 32;
const BIN_OFFSET = 2 ** 20;
const COLON = 58;
const COMMA = 44;
const MINUS = 45;
const DIGIT_0 = 48;

/**
 * The nearest-rank quantiles `qs` (ascending) of a bins text (one row's, or several rows'
 * concatenated as the repository reads a range's days), as `quantile(addBinsText(new Map(),
 * text), q)` gives each: the slowest list reads 20,000 tests' days a request, and building a Map
 * per test, then sorting its keys per quantile, was most of that request's time (BENCHMARKS.md,
 * issue 25). Here the entries are parsed by hand into one typed array of packed (bin, count)
 * numbers, sorted once, and walked once. Anything else than `bin:count` entries with counts from
 * 0 to 2^32 (never stored) takes the Map's way.
 */
export function quantilesOfText(text: string, qs: readonly number[]): (number | null)[] {
  const packed = new Float64Array(Math.ceil(text.length / 4) + 1);
  let entries = 0;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    let sign = 1;
    if (text.charCodeAt(at) === MINUS) {
      sign = -1;
      at += 1;
    }
    let bin = 0;
    let digits = 0;
    for (; at < text.length && text.charCodeAt(at) !== COLON; at += 1, digits += 1) {
      const d = text.charCodeAt(at) - DIGIT_0;
      if (d < 0 || d > 9) return slowQuantiles(text, qs);
      bin = bin * 10 + d;
    }
    if (digits === 0 || at === text.length || bin >= BIN_OFFSET) return slowQuantiles(text, qs);
    at += 1;
    let count = 0;
    digits = 0;
    for (; at < text.length && text.charCodeAt(at) !== COMMA; at += 1, digits += 1) {
      const d = text.charCodeAt(at) - DIGIT_0;
      if (d < 0 || d > 9) return slowQuantiles(text, qs);
      count = count * 10 + d;
    }
    if (digits === 0 || count >= BIN_SHIFT) return slowQuantiles(text, qs);
    at += 1;
    packed[entries] = (sign * bin + BIN_OFFSET) * BIN_SHIFT + count;
    entries += 1;
    total += count;
  }
  if (total === 0) return qs.map(() => null);
  const sorted = packed.subarray(0, entries).sort();
  const out: (number | null)[] = [];
  let seen = 0;
  let i = 0;
  let bin = 0;
  for (const q of qs) {
    // 0-based, as sketch.ts's quantile: x[⌈q·n⌉ − 1].
    const rank = Math.max(0, Math.ceil(q * total) - 1);
    while (seen <= rank && i < entries) {
      const x = sorted[i] as number;
      const high = Math.floor(x / BIN_SHIFT);
      bin = high - BIN_OFFSET;
      seen += x - high * BIN_SHIFT;
      i += 1;
    }
    out.push(valueOfBin(bin));
  }
  return out;
}

const slowQuantiles = (text: string, qs: readonly number[]) => {
  const bins = addBinsText(new Map(), text);
  return qs.map((q) => quantile(bins, q));
};

/** A test's figures over a range's days (docs/tests.md, "Kept per day"). */
export function figuresOf(sums: DaySums): DayFigures {
  const [p50, p95] = quantilesOfText(sums.bins, [0.5, 0.95]);
  return {
    testId: sums.testId,
    runs: sums.runs,
    passed: sums.passed,
    failed: sums.failed,
    skipped: sums.skipped,
    retried: sums.retried,
    failureRate:
      sums.passed + sums.failed === 0 ? null : round3(sums.failed / (sums.passed + sums.failed)),
    p50Ms: ms(p50 ?? null),
    p95Ms: ms(p95 ?? null),
  };
}

/** The p50 alone (the trend's previous period). */
export const p50Of = (bins: string) => ms(quantilesOfText(bins, [0.5])[0] ?? null);
