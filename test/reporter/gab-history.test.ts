import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchmarkFormatError } from '../../reporter/benchmarks/result.js';
import { gabHistory } from '../../reporter/import/gab-history.js';

/**
 * github-action-benchmark's gh-pages history read as the records to import: a data.js with a
 * cargo, a go (four units per line), a customSmallerIsBetter and a JMH set, as the Action writes
 * it (fixtures/import/data.js).
 */

const DATA_JS = readFileSync(join(import.meta.dirname, 'fixtures', 'import', 'data.js'), 'utf8');
const fails = (text: string) => {
  let error: unknown;
  try {
    gabHistory(text);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(BenchmarkFormatError);
  return (error as Error).message;
};

describe('github-action-benchmark history', () => {
  it('makes one record per entry, with its date, commit, results, units and directions', () => {
    const history = gabHistory(DATA_JS, 'main');
    expect(history.sets).toEqual(['Rust Benchmark', 'Go Benchmark', 'Startup', 'JMH']);
    expect(history.entries).toBe(5);
    expect(history.records.map((r) => r.created_at)).toEqual([
      '2024-11-10T08:20:00.000Z',
      '2024-11-12T09:00:00.000Z',
      '2024-11-11T15:30:00.000Z',
      '2024-11-09T08:00:00.000Z',
      '2024-11-08T08:00:00.000Z',
    ]);
    const [rust, , go, startup, jmh] = history.records.map((r) => r.payload);
    expect(rust).toEqual({
      ci: {
        provider: 'github-action-benchmark',
        commit: '5f2c8e1a9b3d4c6e7f8091a2b3c4d5e6f7081920',
        commit_url:
          'https://github.com/example/engine/commit/5f2c8e1a9b3d4c6e7f8091a2b3c4d5e6f7081920',
        branch: 'main',
      },
      benchmark_set: 'Rust Benchmark',
      benchmarks: [
        {
          name: 'bench_fib_10',
          value: 135,
          unit: 'ns/iter',
          range: '± 24',
          bigger_is_better: false,
        },
        {
          name: 'bench_fib_20',
          value: 18149,
          unit: 'ns/iter',
          range: '± 755',
          bigger_is_better: false,
        },
      ],
      units: { 'bench/bench_fib_10': 'ns/iter', 'bench/bench_fib_20': 'ns/iter' },
      directions: { 'bench/bench_fib_10': 'lower', 'bench/bench_fib_20': 'lower' },
    });
    // Go: one result per unit; a rate (MB/s) is higher-is-better, the rest lower.
    expect(go?.directions).toEqual({
      'bench/BenchmarkEncode - ns/op': 'lower',
      'bench/BenchmarkEncode - B/op': 'lower',
      'bench/BenchmarkEncode - allocs/op': 'lower',
      'bench/BenchmarkEncode - MB/s': 'higher',
    });
    expect(
      ((go as Record<string, unknown>).benchmarks as { value: number; extra?: string }[]).map(
        (b) => b.value,
      ),
    ).toEqual([1043, 512, 4, 981.7]);
    // The custom tool says its direction, whatever the unit; MB here is not a rate either way.
    expect(startup?.directions).toEqual({
      'bench/cold start': 'lower',
      'bench/heap after start': 'lower',
    });
    expect(((startup as Record<string, unknown>).benchmarks as object[])[0]).toEqual({
      name: 'cold start',
      value: 412.5,
      unit: 'ms',
      range: '3',
      extra: 'median of 10',
      bigger_is_better: false,
    });
    // JMH's throughput: higher is better (github-action-benchmark judges it backwards).
    expect(jmh?.units).toEqual({ 'bench/org.example.HashBench.hash': 'ops/s' });
    expect(jmh?.directions).toEqual({ 'bench/org.example.HashBench.hash': 'higher' });
  });

  it('gives the same keys on every read (a re-run imports nothing twice), a key per record', () => {
    const first = gabHistory(DATA_JS).records.map((r) => r.key);
    expect(gabHistory(DATA_JS).records.map((r) => r.key)).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
  });

  it('reads data.json (the object alone) as data.js, and leaves out the branch it was not given', () => {
    const json = DATA_JS.replace(/^window\.BENCHMARK_DATA = /, '');
    const fromJson = gabHistory(json);
    expect(fromJson.records).toEqual(gabHistory(DATA_JS).records);
    expect(fromJson.records[0]?.payload.ci).not.toHaveProperty('branch');
  });

  it('splits an entry of more than 100 results into records of 100, each with its own key', () => {
    const benches = Array.from({ length: 250 }, (_, i) => ({
      name: `b${i}`,
      value: i,
      unit: 'ns/iter',
    }));
    const text = JSON.stringify({
      entries: {
        big: [{ commit: { id: 'abc' }, date: 1_700_000_000_000, tool: 'cargo', benches }],
      },
    });
    const { records } = gabHistory(text);
    expect(records.map((r) => (r.payload.benchmarks as object[]).length)).toEqual([100, 100, 50]);
    expect(records.map((r) => r.key)).toEqual([
      'gab:big:abc:1700000000000:0',
      'gab:big:abc:1700000000000:1',
      'gab:big:abc:1700000000000:2',
    ]);
    expect(new Set(records.map((r) => r.created_at))).toEqual(
      new Set(['2023-11-14T22:13:20.000Z']),
    );
  });

  it('refuses what is not a history, saying where and what it found', () => {
    expect(fails('window.BENCHMARK_DATA = {\n  "entries": {,\n}')).toMatch(
      /^expected github-action-benchmark's data\.js .* found text that is not JSON \(line 2, column 15/,
    );
    expect(fails('[{"name":"a","value":1,"unit":"ms"}]')).toContain(
      'found a JSON array of { name, value, unit } (tool customSmallerIsBetter or customBiggerIsBetter)',
    );
    expect(
      fails(
        '{"entries":{"s":[{"commit":{"id":"x"},"date":1,"tool":"go","benches":[{"name":"a"}]}]}}',
      ),
    ).toMatch(
      /^entries\["s"\]\[0\]\.benches\[0\]: expected \{ name, value, unit \}, found a JSON object with "name"/,
    );
    expect(fails('{"entries":{"s":[{"date":1,"tool":"go","benches":[]}]}}')).toMatch(
      /^entries\["s"\]\[0\]\.commit: expected \{ id, \.\.\. \}/,
    );
    expect(fails('{"entries":{"s":[{"commit":{"id":"x"},"tool":"go","benches":[]}]}}')).toMatch(
      /^entries\["s"\]\[0\]\.date: expected epoch milliseconds/,
    );
  });
});
