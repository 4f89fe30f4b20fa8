import { describe, expect, it } from 'vitest';
import { seriesOf } from '../../server/domain/record-facts.js';

describe('the series of one record', () => {
  // The benchmarks issue's payloads: duration_ms first, then hundreds of benchmarks. The limit
  // keeps the first 100 leaves in the payload's own order, not the first 100 names sorted
  // (sorted, bench_0 … bench_99 would win and duration_ms, the build's time, would be lost).
  it('keeps the first 100 numeric leaves in the order the payload lists them', () => {
    const payload: Record<string, unknown> = { duration_ms: 1200 };
    for (let i = 0; i < 500; i++) payload[`bench_${i}`] = i;
    const keys = seriesOf(JSON.parse(JSON.stringify(payload))).map(([key]) => key);
    const expected = ['duration_ms'];
    for (let i = 0; i < 99; i++) expected.push(`bench_${i}`);
    expect(keys).toEqual(expected);
  });

  it('walks nested objects depth first, leaves the context objects and arrays out', () => {
    const payload = {
      z: 1,
      ci: { run: 7 },
      size: { js: 10, css: { min: 2 } },
      list: [1, 2],
      github: { run_attempt: 1 },
      a: 3,
      text: 'x',
      nan: null,
    };
    expect(seriesOf(payload)).toEqual([
      ['z', 1],
      ['size.js', 10],
      ['size.css.min', 2],
      ['a', 3],
    ]);
  });

  // What the reporters send (docs/benchmarks.md): the list of benchmarks, each a series
  // `bench/<name>`, at the list's place in the payload; its other fields are not series.
  it("reads the reporters' benchmarks as bench/<name> series, at the list's place", () => {
    const payload = {
      duration_ms: 900,
      benchmarks: [
        { name: 'BenchmarkSort - MB/s', value: 30.38, unit: 'MB/s', bigger_is_better: true },
        { name: 'parse', value: 12, unit: 'ns/op', range: '± 1', bigger_is_better: false },
        { name: '', value: 1 },
        { name: 'no value', value: 'fast' },
        { name: 'infinite', value: null },
        'not an entry',
      ],
      units: { 'bench/parse': 'ns/op' },
      size: { js: 10 },
    };
    expect(seriesOf(JSON.parse(JSON.stringify(payload)))).toEqual([
      ['duration_ms', 900],
      ['bench/BenchmarkSort - MB/s', 30.38],
      ['bench/parse', 12],
      ['size.js', 10],
    ]);
    // Only the top level's list: a nested `benchmarks` array is an array like any other.
    expect(seriesOf({ x: { benchmarks: [{ name: 'a', value: 1 }] } })).toEqual([]);
  });

  it('keeps the first value of a key met twice', () => {
    const payload = {
      'a.b': 1,
      a: { b: 2 },
      benchmarks: [
        { name: 'x', value: 3 },
        { name: 'x', value: 4 },
      ],
    };
    expect(seriesOf(payload)).toEqual([
      ['a.b', 1],
      ['bench/x', 3],
    ]);
  });

  it('counts benchmarks within the 100 series of a record', () => {
    const payload = {
      duration_ms: 1,
      benchmarks: Array.from({ length: 150 }, (_, i) => ({ name: `b${i}`, value: i })),
      after: 2,
    };
    const keys = seriesOf(payload).map(([key]) => key);
    expect(keys).toHaveLength(100);
    expect(keys[0]).toBe('duration_ms');
    expect(keys.at(-1)).toBe('bench/b98');
  });
});
