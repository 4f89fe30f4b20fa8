/** One benchmark result, as the metric record carries it in `payload.benchmarks`. */
export interface BenchmarkResult {
  name: string;
  value: number;
  /** Never holds whitespace (a series' unit is one token: `ns/op`, `ops/s`, `MB/s`). */
  unit: string;
  /** The tool's spread as text, e.g. `± 24`. */
  range?: string;
  /** What else the tool says, e.g. iterations. */
  extra?: string;
  bigger_is_better: boolean;
}

/** A file that is not the output the tool makes: says what was expected and what was found. */
export class BenchmarkFormatError extends Error {}

/** Time units a rate is counted per: `ops/s`, `MB/s`, `iter/sec`, `ops/ms`… */
const PER_TIME = /\/(s|sec|secs|second|seconds|ms|us|µs|μs|ns|min|m|h|hr|hour)$/i;

/**
 * Whether more is better for a unit: any rate (something per unit of time, or Hz) is; times,
 * sizes and counts per operation are not. github-action-benchmark judges every unit but
 * `customBiggerIsBetter`'s as smaller-is-better, JMH's throughput included: that is the mistake
 * issue 24 asks us not to repeat.
 */
export function isRate(unit: string): boolean {
  return PER_TIME.test(unit) || /^[kMG]?Hz$/i.test(unit);
}

/** A result, or nothing when it breaks the rules every result keeps (a name, a finite value, a one-token unit). */
export function result(
  name: string,
  value: number,
  unit: string,
  biggerIsBetter: boolean = isRate(unit),
  range?: string,
  extra?: string,
): BenchmarkResult | undefined {
  const cleanName = name.trim();
  // Most units are one clean token already: test before building a new string.
  const cleanUnit = /\s/.test(unit) ? unit.trim().replace(/\s+/g, '_') : unit;
  if (cleanName === '' || cleanUnit === '' || !Number.isFinite(value)) return undefined;
  // Literals rather than spreads (two million results in a 50 MB go output), in one key order.
  const hasRange = range !== undefined && range !== '';
  const hasExtra = extra !== undefined && extra !== '';
  const bigger_is_better = biggerIsBetter;
  const n = cleanName;
  const v = value;
  const u = cleanUnit;
  if (hasRange && hasExtra) return { name: n, value: v, unit: u, range, extra, bigger_is_better };
  if (hasRange) return { name: n, value: v, unit: u, range, bigger_is_better };
  if (hasExtra) return { name: n, value: v, unit: u, extra, bigger_is_better };
  return { name: n, value: v, unit: u, bigger_is_better };
}

/** Parses a number as the harnesses print it: `1,234.5`, `3.37E9`. */
export const numberOf = (text: string): number => Number(text.replace(/,/g, ''));

/** A tool whose output is read line by line (streamed: any size in little memory). */
export interface LineTool {
  kind: 'lines';
  /** What the file should be, for the error that says it is not. */
  expected: string;
  /**
   * A fresh parser for one file: it is handed each line, then asked for its results. With
   * `keep`, it may keep only about that many and count the rest (`beyond`): a step sends at most
   * a few thousand, and keeping millions is what a huge output would cost.
   */
  create(keep?: number): { line(text: string): void; end(): BenchmarkResult[]; beyond?(): number };
}

/** A tool whose output is one JSON document. */
export interface JsonTool {
  kind: 'json';
  expected: string;
  /** The results of the parsed document; throws BenchmarkFormatError when its shape is another's. */
  parse(document: unknown): BenchmarkResult[];
}

export type BenchmarkTool = LineTool | JsonTool;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keeps the defined results (a dropped one broke the rules above). */
export const defined = (results: (BenchmarkResult | undefined)[]): BenchmarkResult[] =>
  results.filter((r): r is BenchmarkResult => r !== undefined);
