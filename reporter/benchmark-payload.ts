import { benchmarkKey } from '../contract/benchmarks.js';
import { isJsonObject } from '../contract/json.js';
import { Limits } from '../contract/limits.js';
import type { BenchmarkResult } from './benchmarks/result.js';

/** At most this many benchmarks per metric record: the server reads 100 series of a record. */
export const BENCHMARKS_PER_RECORD = 100;

/** The part of a metric payload that carries benchmarks: the list, and each series' unit and direction. */
export function benchmarkFields(results: BenchmarkResult[]) {
  const units: Record<string, string> = {};
  const directions: Record<string, 'lower' | 'higher'> = {};
  for (const r of results) {
    const key = benchmarkKey(r.name);
    units[key] = r.unit;
    directions[key] = r.bigger_is_better ? 'higher' : 'lower';
  }
  return { benchmarks: results, units, directions };
}

/** At most this many results per step (50 metric records): more is a configuration error. */
export const MAX_BENCHMARKS = 5000;

const bytes = (value: unknown) => utf8Bytes(JSON.stringify(value));
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/** What one result adds to a payload: its entry, its unit and its direction (and their commas). */
function resultBytes(r: BenchmarkResult): number {
  const key = bytes(benchmarkKey(r.name));
  return bytes(r) + 1 + key + bytes(r.unit) + 2 + key + bytes('higher') + 2;
}

/**
 * The benchmarks split into the payloads of as many metric records as they need: each fits the
 * payload limit with `base(index)` (the step's metrics and context; the first also its test
 * counts) and holds at most BENCHMARKS_PER_RECORD, so a suite of hundreds of results is several
 * records rather than a refused one. Sizes are added up as results go in (a serialisation per
 * result, not per record). A result too big for any record is cut to its essentials (no range,
 * no extra); should even that not fit, the contract's check refuses it, naming the input.
 */
export function benchmarkPayloads(
  results: BenchmarkResult[],
  base: (index: number) => Record<string, unknown>,
): Record<string, unknown>[] {
  const payloads: Record<string, unknown>[] = [];
  const emptyBytes = (index: number) => bytes({ ...base(index), ...benchmarkFields([]) });
  let part: BenchmarkResult[] = [];
  let used = emptyBytes(0);
  const close = () => {
    const own = base(payloads.length);
    const fields = benchmarkFields(part);
    // Units and directions the step's own metrics declare stay beside the benchmarks'.
    payloads.push({
      ...own,
      ...fields,
      units: { ...(isJsonObject(own.units) ? own.units : {}), ...fields.units },
      directions: { ...(isJsonObject(own.directions) ? own.directions : {}), ...fields.directions },
    });
    part = [];
    used = emptyBytes(payloads.length);
  };
  for (const one of results) {
    let entry = one;
    let size = resultBytes(entry);
    if (
      part.length >= BENCHMARKS_PER_RECORD ||
      (part.length > 0 && used + size > Limits.payloadBytes)
    )
      close();
    if (used + size > Limits.payloadBytes) {
      entry = {
        name: one.name,
        value: one.value,
        unit: one.unit,
        bigger_is_better: one.bigger_is_better,
      };
      size = resultBytes(entry);
    }
    part.push(entry);
    used += size;
  }
  if (part.length > 0) close();
  return payloads;
}
