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
});
