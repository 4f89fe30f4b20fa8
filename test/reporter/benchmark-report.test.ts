import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBenchmarkInputs } from '../../reporter/benchmark-input.js';
import type { BenchmarkResult } from '../../reporter/benchmarks/result.js';
import type { Acknowledgement, StatsClient } from '../../reporter/client.js';
import { report } from '../../reporter/report.js';
import { readCliContext } from '../../reporter/report-context.js';
import type { PlannedRequest } from '../../reporter/requests.js';
import { reporterInputs } from '../helpers/reporter-inputs.js';

/** Benchmark files through the reporting core, in process, with a fake client. */

class FakeClient implements StatsClient {
  readonly sent: PlannedRequest[] = [];
  async send(request: PlannedRequest): Promise<Acknowledgement> {
    this.sent.push(request);
    return { id: `id-${this.sent.length}`, message: 'stored', replayed: false };
  }
}

const FIXTURES = join(import.meta.dirname, 'fixtures', 'benchmarks');
const context = readCliContext(
  {
    GITLAB_CI: 'true',
    CI_PROJECT_PATH: 'acme/app',
    CI_PIPELINE_ID: '9',
    CI_JOB_ID: '4',
    CI_PROJECT_ID: '1',
  },
  FIXTURES,
);

async function withBenchmarks(extra: Record<string, string>) {
  const inputs = reporterInputs(extra);
  const warnings: string[] = [];
  await readBenchmarkInputs(inputs, (w) => warnings.push(w), FIXTURES);
  return { inputs, warnings };
}

type Payload = {
  benchmarks: BenchmarkResult[];
  units: Record<string, string>;
  directions: Record<string, string>;
  [key: string]: unknown;
};

describe('a benchmark file in the metric record', () => {
  it('the results, each series key with its unit and direction, beside the step metrics', async () => {
    const { inputs, warnings } = await withBenchmarks({
      'benchmark-tool': 'cargo',
      'benchmark-file': 'cargo-libtest.txt',
      metrics: '{"duration_ms": 5, "units": {"duration_ms": "ms"}}',
    });
    expect(warnings).toEqual([]);
    const client = new FakeClient();
    await report(client, context, inputs);
    expect(client.sent).toHaveLength(1);
    const payload = client.sent[0]?.body.payload as Payload;
    expect(payload.duration_ms).toBe(5);
    expect(payload.benchmarks.map((b) => b.name)).toEqual([
      'bench_copy_4k',
      'bench_copy_4k - MB/s',
      'bench_fib_10',
      'bench_fib_20',
    ]);
    expect(payload.units).toEqual({
      duration_ms: 'ms',
      'bench/bench_copy_4k': 'ns/iter',
      'bench/bench_copy_4k - MB/s': 'MB/s',
      'bench/bench_fib_10': 'ns/iter',
      'bench/bench_fib_20': 'ns/iter',
    });
    expect(payload.directions).toEqual({
      'bench/bench_copy_4k': 'lower',
      'bench/bench_copy_4k - MB/s': 'higher',
      'bench/bench_fib_10': 'lower',
      'bench/bench_fib_20': 'lower',
    });
    expect(payload.ci).toMatchObject({ provider: 'gitlab', repository: 'acme/app' });
  });

  it('a suite too big for one record becomes several, each within the limits, every result once', async () => {
    const { inputs } = await withBenchmarks({
      'benchmark-tool': 'go',
      'benchmark-file': 'go-two-packages.txt',
    });
    const one = inputs.benchmarks?.[0] as BenchmarkResult;
    inputs.benchmarks = Array.from({ length: 450 }, (_, i) => ({
      ...one,
      name: `BenchmarkGenerated/case_${i}_${'x'.repeat(i % 90)}`,
      value: i,
    }));
    inputs.metrics = { duration_ms: 7 };
    const client = new FakeClient();
    await report(client, context, inputs);
    const payloads = client.sent.map((r) => r.body.payload as Payload);
    expect(payloads.length).toBeGreaterThanOrEqual(5);
    const sent = payloads.flatMap((p) => p.benchmarks.map((b) => b.value));
    expect(sent).toEqual(Array.from({ length: 450 }, (_, i) => i));
    for (const [index, payload] of payloads.entries()) {
      expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(32 * 1024);
      expect(payload.benchmarks.length).toBeLessThanOrEqual(100);
      expect(Object.keys(payload.units)).toHaveLength(payload.benchmarks.length);
      expect(payload.ci).toMatchObject({ provider: 'gitlab' });
      expect(payload.duration_ms).toBe(index === 0 ? 7 : undefined);
    }
    const keys = client.sent.map((r) => r.idempotencyKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys[0]).toMatch(/\/metric\/[^/]+$/);
    expect(keys[1]).toMatch(/\/metric-2\/[^/]+$/);
  });

  it('a file without benchmarks is a warning, and no record comes of it', async () => {
    const { inputs, warnings } = await withBenchmarks({
      'benchmark-tool': 'go',
      'benchmark-file': 'cargo-libtest.txt',
    }).catch((error) => ({ inputs: undefined, warnings: [String(error)] }));
    // cargo's lines are not go's: that is a file of another format, not an empty one.
    expect(inputs).toBeUndefined();
    expect(warnings[0]).toContain(
      'expected the output of go test -bench, found the output of cargo bench',
    );
  });
});

describe('the inputs', () => {
  it('benchmark-file alone is enough to send (a metric); one path or glob per line', () => {
    const inputs = reporterInputs({
      'benchmark-tool': 'jmh',
      'benchmark-file': ' a.json\n\n b/*.json ',
    });
    expect(inputs.event).toBeUndefined();
    expect(inputs.benchmarkFiles).toEqual(['a.json', 'b/*.json']);
  });
});
