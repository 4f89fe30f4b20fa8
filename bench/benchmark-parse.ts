import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { MAX_BENCHMARKS } from '../reporter/benchmark-payload.js';
import { readBenchmarkFiles } from '../reporter/benchmarks/read.js';
import { median } from './median.js';

/**
 * Scenario `benchmarks` (issue 24): parse time of a 50 MB `go test -bench` output and a 50 MB
 * JMH JSON, each beside its floor (reading the same file line by line and doing nothing; a bare
 * JSON.parse of it), in paired rounds. The target: each 50 MB output parsed in under 2 s.
 */

const TARGET_BYTES = Number(process.env.BENCH_PARSE_BYTES ?? 50 * 2 ** 20);
const ROUNDS = Number(process.env.BENCH_PARSE_ROUNDS ?? 5);

/** A go output of several packages, lines of one and of several units, up to `bytes`. */
function goOutput(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let pkg = 0; size < bytes; pkg++) {
    const block = [
      `goos: linux`,
      `goarch: amd64`,
      `pkg: example.com/bench/pkg${pkg}`,
      'cpu: Intel(R) Xeon(R) Processor',
    ];
    for (let i = 0; i < 1000; i++) {
      block.push(
        i % 2 === 0
          ? `BenchmarkCase${i}/size_${i * 8}-2   \t ${1000 + i}\t ${(i * 13.7).toFixed(1)} ns/op`
          : `BenchmarkCase${i}-2   \t ${1000 + i}\t ${(i * 13.7).toFixed(1)} ns/op\t  ${(i / 3).toFixed(2)} MB/s\t ${i * 8} B/op\t ${i % 7} allocs/op`,
      );
    }
    block.push('PASS', `ok  \texample.com/bench/pkg${pkg}\t1.234s`);
    const text = `${block.join('\n')}\n`;
    parts.push(text);
    size += text.length;
  }
  return parts.join('');
}

/** A JMH `-rf json` array of throughput and average-time entries, up to `bytes`. */
function jmhOutput(bytes: number): string {
  const entries: string[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const entry = JSON.stringify(
      {
        jmhVersion: '1.37',
        benchmark: `org.example.Bench${i % 500}.method${i}`,
        mode: i % 2 ? 'thrpt' : 'avgt',
        threads: 1,
        forks: 1,
        measurementIterations: 5,
        params: { size: String(i % 100) },
        primaryMetric: {
          score: 1234.5 + i,
          scoreError: 12.3,
          scoreConfidence: [1222.2, 1246.8],
          scoreUnit: i % 2 ? 'ops/s' : 'ns/op',
          rawData: [[1230.1, 1234.2, 1236.3, 1238.4, 1240.5]],
        },
        secondaryMetrics: {},
      },
      null,
      4,
    );
    entries.push(entry);
    size += entry.length + 2;
  }
  return `[\n${entries.join(',\n')}\n]\n`;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function readAllLines(path: string): Promise<number> {
  let count = 0;
  for await (const _ of createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  }))
    count++;
  return count;
}

/**
 * A second floor for go: only allocating as many results as the file holds, each of the shape the
 * parser returns (name, value, unit, extra, direction), kept in one array. A 50 MB go output holds
 * about two million results, and keeping them is most of the parse's cost.
 */
async function allocateResults(count: number): Promise<number> {
  const kept: {
    name: string;
    value: number;
    unit: string;
    extra: string;
    bigger_is_better: boolean;
  }[] = [];
  for (let i = 0; i < count; i++)
    kept.push({
      name: `BenchmarkCase${i % 1000} - ns/op`,
      value: i * 1.37,
      unit: 'ns/op',
      extra: `${1000 + i} times`,
      bigger_is_better: false,
    });
  return kept.length;
}

export async function benchmarkParseScenario() {
  const dir = mkdtempSync(join(tmpdir(), 'ci-stats-bench-parse-'));
  const goFile = join(dir, 'go.txt');
  const jmhFile = join(dir, 'jmh.json');
  writeFileSync(goFile, goOutput(TARGET_BYTES));
  writeFileSync(jmhFile, jmhOutput(TARGET_BYTES));
  const goCount = (await readBenchmarkFiles('go', [goFile], () => undefined)).results.length;
  const targets: [string, () => Promise<unknown>][] = [
    ['go: floor (readline, nothing done)', () => readAllLines(goFile)],
    ['go: floor (allocating its results alone)', () => allocateResults(goCount)],
    // What a step does (it sends at most MAX_BENCHMARKS): keep one more, count the rest.
    [
      'go: ours, as a step reads it',
      () => readBenchmarkFiles('go', [goFile], () => undefined, undefined, MAX_BENCHMARKS + 1),
    ],
    ['go: ours, keeping every result', () => readBenchmarkFiles('go', [goFile], () => undefined)],
    [
      'jmh: floor (readFileSync + JSON.parse)',
      async () => JSON.parse(readFileSync(jmhFile, 'utf8')),
    ],
    [
      'jmh: ours (--benchmark-tool jmh)',
      () => readBenchmarkFiles('jmh', [jmhFile], () => undefined),
    ],
  ];
  const samples = new Map<string, number[]>(targets.map(([name]) => [name, []]));
  const counts = {
    go: goCount,
    jmh: (await readBenchmarkFiles('jmh', [jmhFile], () => undefined)).results.length,
  };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of targets) samples.get(name)?.push(await timed(run));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const mb = (TARGET_BYTES / 2 ** 20).toFixed(0);
  const results = Object.fromEntries([...samples].map(([name, ms]) => [name, median(ms)]));
  const report = [
    '',
    `Benchmark parsing (issue 24): ${mb} MB outputs, ${ROUNDS} paired rounds, medians; go ${counts.go} results, jmh ${counts.jmh}`,
    ...[...samples].map(
      ([name, ms]) => `  ${name.padEnd(42)} ${median(ms).toFixed(0).padStart(6)} ms`,
    ),
  ];
  return { results: { ...results, counts }, report };
}
