/**
 * A range [from, to) cut into `count` equal intervals, with the exact rule for which interval a
 * time belongs to, and the plan to read each interval from the pre-aggregated cells: whole hours
 * from hour cells, whole ten minutes from ten-minute cells, whole minutes from minute cells, and
 * the partial minutes at the edges from the raw rows. Any bucket edges then give exact counts,
 * sums, minima, maxima and last values, reading at most 5 + 9 cells of the finer levels per edge.
 */
export const MINUTE_MS = 60_000;
export const TEN_MINUTES_MS = 600_000;
export const HOUR_MS = 3_600_000;
/** The cells kept, coarsest first. */
export const CELL_UNITS = [HOUR_MS, TEN_MINUTES_MS, MINUTE_MS] as const;

export interface Bucket {
  index: number;
  /** Epoch ms, inclusive. */
  start: number;
  /** Epoch ms, exclusive. */
  end: number;
}

/** A span of time read from one source, for one bucket. */
export interface Span {
  bucket: number;
  from: number;
  to: number;
}

/** A span read from the cells of one unit. */
export interface CellSpan extends Span {
  unit: number;
}

export interface ReadPlan {
  buckets: Bucket[];
  /** Whole units (hours, then ten minutes, then minutes, outside the coarser ones): cells. */
  cells: CellSpan[];
  /** What remains (less than a minute at each end of a bucket), in time order: the raw rows. */
  raw: Span[];
}

/** [from, to) of the whole plan, or undefined when it has no bucket. */
export function planRange(plan: ReadPlan): [number, number] | undefined {
  const first = plan.buckets[0];
  const last = plan.buckets.at(-1);
  return first && last ? [first.start, last.end] : undefined;
}

/**
 * The buckets of [from, to): a time t is in bucket floor((t - from) * count / (to - from)), so
 * bucket i covers [from + ceil(i * span / count), from + ceil((i + 1) * span / count)).
 */
export function bucketsOf(from: number, to: number, count: number): Bucket[] {
  const span = to - from;
  const edge = (i: number) => from + Math.ceil((i * span) / count);
  const buckets: Bucket[] = [];
  for (let i = 0; i < count; i++) {
    const start = edge(i);
    const end = edge(i + 1);
    if (end > start) buckets.push({ index: i, start, end });
  }
  return buckets;
}

export const bucketOf = (t: number, from: number, to: number, count: number): number =>
  Math.floor(((t - from) * count) / (to - from));

const ceilTo = (t: number, unit: number) => Math.ceil(t / unit) * unit;
const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit;

/** [from, to) as whole units of `unit` and what is left on each side. */
function split(from: number, to: number, unit: number) {
  const first = ceilTo(from, unit);
  const last = floorTo(to, unit);
  if (first >= last) return { whole: undefined, rest: [[from, to]] as [number, number][] };
  const rest: [number, number][] = [];
  if (from < first) rest.push([from, first]);
  if (last < to) rest.push([last, to]);
  return { whole: [first, last] as [number, number], rest };
}

/** The units of the workflow cells (hours only: stats-fold.ts, foldWorkflowEvents). */
export const WORKFLOW_UNITS = [HOUR_MS] as const;

/** `units`: the cells' units, largest first (the workflow cells': WORKFLOW_UNITS). */
export function readPlan(
  from: number,
  to: number,
  count: number,
  units: readonly number[] = CELL_UNITS,
): ReadPlan {
  const plan: ReadPlan = { buckets: bucketsOf(from, to, count), cells: [], raw: [] };
  const cut = (bucket: number, start: number, end: number, level: number) => {
    const unit = units[level];
    if (unit === undefined) {
      plan.raw.push({ bucket, from: start, to: end });
      return;
    }
    const { whole, rest } = split(start, end, unit);
    if (whole) plan.cells.push({ bucket, unit, from: whole[0], to: whole[1] });
    for (const [restFrom, restTo] of rest) cut(bucket, restFrom, restTo, level + 1);
  };
  for (const bucket of plan.buckets) cut(bucket.index, bucket.start, bucket.end, 0);
  return plan;
}

/** The last element of sorted `items` whose `key` is at most `t`. */
function lastAtOrBefore<T>(items: T[], t: number, key: (item: T) => number): T | undefined {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(items[mid] as T) <= t) lo = mid + 1;
    else hi = mid;
  }
  return items[lo - 1];
}

/**
 * The bucket whose cells cover time `t`, or undefined when `t` is outside the range or in one
 * of the raw spans (read from the records already). For records the cells do not hold yet.
 */
export function cellBucketOf(plan: ReadPlan, t: number): number | undefined {
  const bucket = lastAtOrBefore(plan.buckets, t, (b) => b.start);
  if (!bucket || t >= bucket.end) return undefined;
  const raw = lastAtOrBefore(plan.raw, t, (span) => span.from);
  if (raw && t < raw.to) return undefined;
  return bucket.index;
}

/**
 * The most cells and raw spans a plan may read: every cell its spans could hold (a span of whole
 * hours holds one cell an hour at most, per series and branch) and one index range per raw span.
 * Its cost grows with the range and with the buckets (each unaligned bucket edge reads up to 5
 * ten-minute and 9 minute cells and a raw span), so it bounds what one read can cost, whatever
 * the records hold.
 */
export function planReads(plan: ReadPlan): number {
  let reads = plan.raw.length;
  for (const span of plan.cells) reads += Math.ceil((span.to - span.from) / span.unit);
  return reads;
}
