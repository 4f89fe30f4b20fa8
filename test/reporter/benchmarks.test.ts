import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBenchmarkFiles } from '../../reporter/benchmarks/read.js';
import { InputError } from '../../reporter/input-error.js';
import { tempDir } from '../helpers/server.js';

/**
 * Each tool's parser on real output: go, cargo (libtest on nightly), pytest-benchmark and
 * hyperfine as run here (fixtures/benchmarks/README.md says how); the other harnesses from
 * github-action-benchmark's own test data (`gab-*`), so the same output gives the same names,
 * values and units it extracts, and directions it gets wrong (JMH's throughput) right.
 */

const FIXTURES = join(import.meta.dirname, 'fixtures', 'benchmarks');
const read = (tool: string, ...files: string[]) => {
  const warnings: string[] = [];
  return readBenchmarkFiles(tool, files, (w) => warnings.push(w), FIXTURES).then((r) => ({
    ...r,
    warnings,
  }));
};
const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const fails = async (tool: string, path: string) => {
  const error = await readBenchmarkFiles(tool, [path], () => undefined, dir).catch((e) => e);
  expect(error).toBeInstanceOf(InputError);
  return error as InputError;
};

const cases: [tool: string, file: string, expected: object[]][] = [
  [
    'go',
    'go-two-packages.txt',
    [
      {
        name: 'BenchmarkFib10 (example.com/benchdemo/fib)',
        value: 214.7,
        unit: 'ns/op',
        extra: '2000 times\n2 procs',
        bigger_is_better: false,
      },
      { name: 'BenchmarkFib20 (example.com/benchdemo/fib)', value: 231643, unit: 'ns/op' },
      {
        name: 'BenchmarkFibAlloc (example.com/benchdemo/fib) - ns/op',
        value: 17.02,
        unit: 'ns/op',
      },
      { name: 'BenchmarkFibAlloc (example.com/benchdemo/fib) - B/op', value: 0, unit: 'B/op' },
      {
        name: 'BenchmarkFibAlloc (example.com/benchdemo/fib) - allocs/op',
        value: 0,
        unit: 'allocs/op',
      },
      {
        name: 'BenchmarkSort (example.com/benchdemo/sorting) - ns/op',
        value: 269631,
        unit: 'ns/op',
        bigger_is_better: false,
      },
      {
        name: 'BenchmarkSort (example.com/benchdemo/sorting) - MB/s',
        value: 30.38,
        unit: 'MB/s',
        bigger_is_better: true,
      },
      {
        name: 'BenchmarkSort (example.com/benchdemo/sorting) - items/op',
        value: 1024,
        unit: 'items/op',
        bigger_is_better: false,
      },
      { name: 'BenchmarkSort (example.com/benchdemo/sorting) - B/op', value: 28, unit: 'B/op' },
      {
        name: 'BenchmarkSort (example.com/benchdemo/sorting) - allocs/op',
        value: 1,
        unit: 'allocs/op',
      },
      { name: 'BenchmarkFib10 (example.com/benchdemo/sorting)', value: 0.411, unit: 'ns/op' },
    ],
  ],
  [
    'go',
    'gab-go_output.txt',
    [
      { name: 'BenchmarkFib10', value: 325, unit: 'ns/op', extra: '5000000 times\n8 procs' },
      { name: 'BenchmarkFib20', value: 40537.123, unit: 'ns/op', extra: '30000 times' },
      { name: 'BenchmarkFib/my_tabled_benchmark_-_10', value: 325, unit: 'ns/op' },
      { name: 'BenchmarkFib/my_tabled_benchmark_-_20', value: 40537.123, unit: 'ns/op' },
      { name: 'BenchmarkFib/my/tabled/benchmark_-_20', value: 40537.456, unit: 'ns/op' },
      { name: 'BenchmarkFib/my/tabled/benchmark_-_20,var1=13,var2=14', value: 40537.456 },
      {
        name: 'BenchmarkFib11 - ns/op',
        value: 262.7,
        unit: 'ns/op',
        extra: '4587789 times\n16 procs',
      },
      { name: 'BenchmarkFib11 - auxMetricUnits', value: 3, unit: 'auxMetricUnits' },
      { name: 'BenchmarkFib22 - ns/op', value: 31915, unit: 'ns/op' },
      { name: 'BenchmarkFib22 - auxMetricUnits', value: 4, unit: 'auxMetricUnits' },
    ],
  ],
  [
    'cargo',
    'cargo-libtest.txt',
    [
      {
        name: 'bench_copy_4k',
        value: 155.91,
        unit: 'ns/iter',
        range: '± 163.60',
        bigger_is_better: false,
      },
      { name: 'bench_copy_4k - MB/s', value: 26425, unit: 'MB/s', bigger_is_better: true },
      { name: 'bench_fib_10', value: 367.28, unit: 'ns/iter', range: '± 422.73' },
      { name: 'bench_fib_20', value: 59786.18, unit: 'ns/iter', range: '± 37302.21' },
    ],
  ],
  [
    'cargo',
    'gab-criterion_output.txt',
    [
      { name: 'Create Realm', value: 329, unit: 'ns/iter', range: '± 4' },
      { name: 'Symbols (Execution)', value: 3268, range: '± 47' },
      { name: 'For loop (Execution)', value: 12314, range: '± 123' },
      { name: 'Fibonacci (Execution)', value: 1672496, range: '± 10166' },
    ],
  ],
  [
    'benchmarkjs',
    'gab-benchmarkjs_output.txt',
    [
      {
        name: 'fib(10)',
        value: 1431759,
        unit: 'ops/sec',
        range: '±0.74%',
        extra: '93 samples',
        bigger_is_better: true,
      },
      { name: 'fib(20)', value: 12146, unit: 'ops/sec', range: '±0.32%', extra: '96 samples' },
      {
        name: 'createObjectBuffer with 200 comments',
        value: 81.61,
        range: '±1.70%',
        extra: '69 samples',
      },
    ],
  ],
  [
    'benchmarkluau',
    'gab-benchmarkluau_output.txt',
    [
      {
        name: 'base64',
        value: 15.041,
        unit: 'ms',
        range: '±0.636%',
        extra: 'luau',
        bigger_is_better: false,
      },
      { name: 'chess', value: 69.56, unit: 'ms', range: '±0.212%' },
      { name: 'life', value: 85.089, unit: 'ms', range: '±0.187%' },
    ],
  ],
  [
    'catch2',
    'gab-catch2_output_v2.txt',
    [
      {
        name: 'Fibonacci 10',
        value: 344,
        unit: 'ns',
        range: '± 19',
        extra: '100 samples\n208 iterations',
        bigger_is_better: false,
      },
      { name: 'Fibonacci 20', value: 41.731, unit: 'us', range: '± 3.256' },
      { name: 'Fibonacci~ 5!', value: 36, unit: 'ns', range: '± 4' },
      // Catch2 gave the deviation in another unit than the mean: the range says so.
      { name: 'Fibonacci-15_bench', value: 3.789, unit: 'us', range: '± 362 ns' },
    ],
  ],
  [
    'catch2',
    'gab-catch2_output_v3.txt',
    [
      { name: 'Fibonacci 10', value: 344, unit: 'ns', range: '± 19' },
      { name: 'Fibonacci 20', value: 41.731, unit: 'us', range: '± 3.256' },
      { name: 'Fibonacci~ 5!', value: 36, unit: 'ns', range: '± 4' },
      { name: 'Fibonacci-15_bench', value: 3.789, unit: 'us', range: '± 362 ns' },
    ],
  ],
  [
    'pytest',
    'pytest-benchmark.json',
    [
      {
        name: 'test_demo.py::test_fib_10',
        value: 158851.19048295668,
        unit: 'iter/sec',
        range: 'stddev: 0.000001564233910667264',
        extra: 'mean: 6.295199909800431 usec\nrounds: 5',
        bigger_is_better: true,
      },
      { name: 'test_demo.py::test_fib_param[5]', value: 1832105.8275387452 },
      { name: 'test_demo.py::test_fib_param[15]', value: 16598.887903421382 },
      { name: 'test_demo.py::TestSort::test_sorted', value: 230765.68235898338 },
    ],
  ],
  [
    'googlecpp',
    'gab-googlecpp_output.json',
    [
      {
        name: 'fib_10',
        value: 214.98980114547953,
        unit: 'ns/iter',
        extra: 'iterations: 3070566\ncpu: 213.65507206163295 ns\nthreads: 1',
        bigger_is_better: false,
      },
      { name: 'fib_20', value: 27455.600415007055, unit: 'ns/iter' },
    ],
  ],
  [
    'jmh',
    'gab-jmh_output.json',
    [
      {
        name: 'org.openjdk.jmh.samples.JMHSample_01_HelloWorld.wellHelloThere',
        value: 3376238873.1228185,
        unit: 'ops/s',
        extra: 'iterations: 3\nforks: 1\nthreads: 1',
        bigger_is_better: true,
      },
    ],
  ],
  [
    'jmh',
    'gab-jmh_output_2.json',
    [
      {
        name: 'org.openjdk.jmh.samples.JMHSample_01_HelloWorld.wellHelloThere ( {"paramA":"17","paramB":"33"} )',
        value: 3376238873.1228185,
        unit: 'ops/s',
        bigger_is_better: true,
      },
    ],
  ],
  [
    'benchmarkdotnet',
    'gab-benchmarkdotnet.json',
    [
      {
        name: 'Sample.Benchmarks.Fib10',
        value: 24.4202085009643,
        unit: 'ns',
        range: '± 0.1981212530783709',
        bigger_is_better: false,
      },
      {
        name: 'Sample.Benchmarks.Fib20',
        value: 51.52008151549559,
        unit: 'ns',
        range: '± 0.7903737021529575',
      },
    ],
  ],
  [
    'customBiggerIsBetter',
    'gab-customBiggerIsBetter_output.json',
    [
      {
        name: 'My Custom Bigger Is Better Benchmark - Throughput',
        value: 70,
        unit: 'req/s',
        bigger_is_better: true,
      },
      {
        name: 'My Custom Bigger Is Better Benchmark - Free Memory',
        value: 150,
        unit: 'Megabytes',
        range: '3',
        extra: 'Optional Value #1: 25\nHelpful Num #2: 100\nAnything Else!',
        bigger_is_better: true,
      },
    ],
  ],
  [
    'customSmallerIsBetter',
    'gab-customSmallerIsBetter_output.json',
    [
      {
        name: 'My Custom Smaller Is Better Benchmark - CPU Load',
        value: 50,
        unit: 'Percent',
        range: '5%',
        extra: 'My Optional Information for the tooltip',
        bigger_is_better: false,
      },
      {
        name: 'My Custom Smaller Is Better Benchmark - Memory Used',
        value: 100,
        unit: 'Megabytes',
        bigger_is_better: false,
      },
    ],
  ],
  [
    'hyperfine',
    'hyperfine.json',
    [
      {
        name: 'sleep',
        value: 0.016767691,
        unit: 's',
        range: '± 0.00281606969377757',
        extra: 'median: 0.016066646 s\nmin: 0.014156772000000001 s\nmax: 0.021462373 s\nruns: 5',
        bigger_is_better: false,
      },
      { name: 'seq 1000', value: 0.00228259, unit: 's' },
    ],
  ],
  [
    'hyperfine',
    'hyperfine-parameters.json',
    [{ name: 'seq 1000', unit: 's' }, { name: 'seq 2000' }, { name: 'seq 3000' }],
  ],
];

describe('the parsers, on real output', () => {
  it.each(cases)('%s: %s', async (tool, file, expected) => {
    const { results, files, warnings } = await read(tool, file);
    expect(files).toEqual([join(FIXTURES, file)]);
    expect(warnings).toEqual([]);
    expect(results).toHaveLength(expected.length);
    for (const [i, one] of expected.entries()) expect(results[i]).toMatchObject(one);
    for (const r of results) {
      expect(r.name).not.toBe('');
      expect(r.unit).toMatch(/^\S+$/);
      expect(Number.isFinite(r.value)).toBe(true);
    }
  });
});

describe('bmf and julia', () => {
  it("Bencher's metric format: one result per benchmark and measure, the built-in measures' units and directions", async () => {
    const path = file(
      'bmf.json',
      JSON.stringify({
        'sort/1000': {
          latency: { value: 88.5, lower_value: 80, upper_value: 99.25 },
          throughput: { value: 11299 },
        },
        parse: { 'file-size': { value: 4096 }, 'rss-peak': { value: 12 } },
      }),
    );
    const { results } = await readBenchmarkFiles('bmf', [path], () => undefined, dir);
    expect(results).toEqual([
      {
        name: 'sort/1000 - latency',
        value: 88.5,
        unit: 'ns',
        range: '80 .. 99.25',
        bigger_is_better: false,
      },
      { name: 'sort/1000 - throughput', value: 11299, unit: 'ops/s', bigger_is_better: true },
      { name: 'parse - file-size', value: 4096, unit: 'B', bigger_is_better: false },
      { name: 'parse - rss-peak', value: 12, unit: 'rss-peak', bigger_is_better: false },
    ]);
  });

  it('BenchmarkTools.jl: every estimate of the nested groups, named by its path, in ns', async () => {
    const { results } = await read('julia', 'gab-julia_output.json');
    expect(results.map((r) => [r.name, r.value, r.unit, r.bigger_is_better])).toEqual([
      ['fib/10', 246.03846153846155, 'ns', false],
      ['fib/20', 31028, 'ns', false],
    ]);
    expect(results[0]?.extra).toMatch(/^gctime=0\nmemory=0\nallocs=0\nparams=\{/);
  });
});

describe('bad input: one clear line, nothing read', () => {
  it('an unknown tool names the tools', async () => {
    const error = await fails('criterion', 'x.txt');
    expect(error.input).toBe('benchmark-tool');
    expect(error.detail).toContain('"criterion" is not a tool ci-stats reads; one of cargo, go,');
  });

  it('a file that does not exist', async () => {
    const error = await fails('go', 'missing/bench.txt');
    expect(error.input).toBe('benchmark-file');
    expect(error.detail).toBe('missing/bench.txt: no such file');
  });

  it('JSON that does not parse: line and column', async () => {
    const path = file('broken.json', '[\n  {"benchmark": "a",\n   "mode": }\n]');
    const error = await fails('jmh', path);
    expect(error.detail).toBe(
      `${path}: expected JMH's JSON (-rf json), found text that is not JSON (line 3, column 12: Unexpected token '}')`,
    );
  });

  it.each([
    [
      'jmh',
      'pytest-benchmark.json',
      "expected JMH's JSON (-rf json), found pytest-benchmark's JSON (tool pytest)",
    ],
    [
      'pytest',
      'gab-googlecpp_output.json',
      "expected pytest-benchmark's JSON (--benchmark-json), found Google Benchmark's JSON (tool googlecpp)",
    ],
    ['googlecpp', 'hyperfine.json', "found hyperfine's --export-json (tool hyperfine)"],
    [
      'hyperfine',
      'gab-jmh_output.json',
      "expected hyperfine's JSON (--export-json), found JMH's JSON (tool jmh)",
    ],
    [
      'go',
      'gab-jmh_output.json',
      "expected the output of go test -bench, found JMH's JSON (tool jmh)",
    ],
    [
      'cargo',
      'go-two-packages.txt',
      "expected the output of cargo bench (libtest) or Criterion's bencher format, found the output of go test -bench (tool go)",
    ],
    [
      'customSmallerIsBetter',
      'gab-benchmarkdotnet.json',
      "found BenchmarkDotNet's JSON (tool benchmarkdotnet)",
    ],
    ['benchmarkjs', 'gab-go_output.txt', 'found the output of go test -bench (tool go)'],
  ])('%s given %s', async (tool, name, text) => {
    const error = await fails(tool, join(FIXTURES, name));
    expect(error.input).toBe('benchmark-file');
    expect(error.detail).toContain(text);
  });

  it('a custom entry without a finite value or a name', async () => {
    const path = file(
      'custom.json',
      JSON.stringify([
        { name: 'a', value: 1, unit: 'ms' },
        { name: 'b', value: 'fast', unit: 'ms' },
      ]),
    );
    expect((await fails('customSmallerIsBetter', path)).detail).toBe(
      `${path}: entry 2 needs a non-empty "name" and "unit" and a finite "value"`,
    );
  });

  it('mangled Catch2 output names the line', async () => {
    const text = readFileSync(join(FIXTURES, 'gab-catch2_output_v2.txt'), 'utf8').split('\n');
    const at = text.findIndex((line) => line.startsWith('Fibonacci 20'));
    text.splice(at + 1, 1);
    const error = await fails('catch2', file('mangled.txt', text.join('\n')));
    expect(error.detail).toContain(
      `line ${at + 3}: the standard deviation of benchmark "Fibonacci 20" is missing (mangled Catch2 output)`,
    );
  });

  it('a harness that printed no benchmark is a warning, not a silent success', async () => {
    const path = file('empty.txt', 'PASS\nok  \texample.com/x\t0.01s\n');
    const warnings: string[] = [];
    const { results } = await readBenchmarkFiles('go', [path], (w) => warnings.push(w), dir);
    expect(results).toEqual([]);
    expect(warnings).toEqual([
      `No benchmark in ${path} (the output of go test -bench): the harness printed none`,
    ]);
  });
});

describe('a step keeps at most what it sends', () => {
  /** `count` go results over two packages, lines of one unit and of two. */
  const goLines = (count: number) => {
    const lines: string[] = [];
    let made = 0;
    for (let i = 0; made < count; i++) {
      if (i % 50 === 0) lines.push(`pkg: example.com/keep/p${i / 50}`);
      if (i % 2 === 0 || made + 2 > count) {
        lines.push(`BenchmarkOne${i}-2   \t 100\t ${i + 0.5} ns/op`);
        made += 1;
      } else {
        lines.push(`BenchmarkTwo${i}-2   \t 100\t ${i + 0.5} ns/op\t ${i} B/op`);
        made += 2;
      }
    }
    return `${lines.join('\n')}\n`;
  };

  it('with keep, the first results as a full read names them, and the count of all', async () => {
    const path = file('keep.txt', goLines(301));
    const all = await readBenchmarkFiles('go', [path], () => undefined, dir);
    expect(all.results).toHaveLength(301);
    expect(all.found).toBe(301);
    const kept = await readBenchmarkFiles('go', [path], () => undefined, dir, 100);
    expect(kept.found).toBe(301);
    expect(kept.results).toEqual(all.results.slice(0, 100));
    // Names carry the package although the second package comes after the cut.
    expect(kept.results[0]?.name).toBe('BenchmarkOne0 (example.com/keep/p0)');
  });

  it('a step refuses more than 5,000 results with their count, and takes 5,000', async () => {
    const { readBenchmarkInputs } = await import('../../reporter/benchmark-input.js');
    const inputs = (files: string[]) =>
      ({ benchmarkTool: 'go', benchmarkFiles: files }) as Parameters<typeof readBenchmarkInputs>[0];
    const over = inputs([file('over.txt', goLines(5_003))]);
    const error = await readBenchmarkInputs(over, () => undefined, dir).catch((e) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toContain(
      'holds 5003 benchmark results; at most 5000 are sent from one step',
    );
    const exact = inputs([file('exact.txt', goLines(5_000))]);
    await readBenchmarkInputs(exact, () => undefined, dir);
    expect(exact.benchmarks).toHaveLength(5_000);
  });
});
