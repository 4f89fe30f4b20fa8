import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { foldStatistics, storeMetric } from '../helpers/seed-records.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Issue 24: github-action-benchmark's history imported (the CLI as a child process, through
 * POST /stats/import-records) into a project that already has newer records: stored back-dated
 * at its own dates (docs/decisions.md), read back by the series at those dates, the baseline of
 * the next record's verdict, and never stored twice.
 */

const DAY = 86_400_000;
/** The history's entries: one a day, values the test knows. */
const ENTRIES = 12;
const dayValue = (i: number) => 400 + ((i * 7) % 5) + i / 4;

let server: TestServer;
let me: TestAccount;
let url: string;

beforeEach(async () => {
  server = await startTestServer();
  me = await server.account();
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
});
afterEach(() => server.close());

const FIXTURE = join(import.meta.dirname, '..', 'reporter', 'fixtures', 'import', 'data.js');

const cli = (file: string, extra: string[] = []) =>
  runCli(['import', 'github-action-benchmark', '--file', file, ...extra], {
    CI_STATS_API_KEY: me.apiKey,
    CI_STATS_BASE_URL: url,
    CI_STATS_PROJECT_ID: me.projectId,
  });

const get = async (path: string) => {
  const answer = await server.call('GET', `${path}&projectId=${me.projectId}`, { key: me.apiKey });
  expect(answer.statusCode).toBe(200);
  return answer.json();
};

const HEADER = '{"format":"ci-stats-records","version":1,"kind":"metrics"}';
const importLines = (lines: string[]) =>
  server.call('POST', `/stats/import-records?projectId=${me.projectId}`, {
    key: me.apiKey,
    headers: { 'content-type': 'application/x-ndjson' },
    body: [HEADER, ...lines].join('\n'),
  });

describe('importing back-dated history', () => {
  it('ci-stats import github-action-benchmark stores the fixture history at its dates behind newer records, and nothing twice', async () => {
    // Newer records first: this project's and another's (the server's newest are after the file).
    await storeMetric(server, me.projectId, Date.UTC(2025, 5, 1), { duration_ms: 5 });
    const other = await server.account();
    await storeMetric(server, other.projectId, Date.now(), { duration_ms: 1 });

    const first = await cli(FIXTURE, ['--branch', 'main']);
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(
      'imported 5 records (0 already there) from 5 entries of 4 benchmark sets\n',
    );
    expect(first.code).toBe(0);

    // Each entry of the fixture (test/reporter/fixtures/import/data.js): its date, commit, results.
    const listed = (await get('/stats/get-metrics?limit=200')).metrics as {
      created_at: string;
      payload: Record<string, unknown>;
    }[];
    const imported = listed
      .filter((m) => m.payload.benchmark_set !== undefined)
      .map((m) => [
        m.created_at,
        m.payload.benchmark_set,
        (m.payload.ci as { commit: string }).commit,
        (m.payload.benchmarks as { name: string; value: number }[]).map((b) => [b.name, b.value]),
      ])
      .sort();
    expect(imported).toEqual([
      [
        '2024-11-08T08:00:00.000Z',
        'JMH',
        expect.any(String),
        [['org.example.HashBench.hash', 3.37e9]],
      ],
      [
        '2024-11-09T08:00:00.000Z',
        'Startup',
        expect.any(String),
        [
          ['cold start', 412.5],
          ['heap after start', 38.2],
        ],
      ],
      [
        '2024-11-10T08:20:00.000Z',
        'Rust Benchmark',
        '5f2c8e1a9b3d4c6e7f8091a2b3c4d5e6f7081920',
        [
          ['bench_fib_10', 135],
          ['bench_fib_20', 18149],
        ],
      ],
      [
        '2024-11-11T15:30:00.000Z',
        'Go Benchmark',
        expect.any(String),
        [
          ['BenchmarkEncode - ns/op', 1043],
          ['BenchmarkEncode - B/op', 512],
          ['BenchmarkEncode - allocs/op', 4],
          ['BenchmarkEncode - MB/s', 981.7],
        ],
      ],
      [
        '2024-11-12T09:00:00.000Z',
        'Rust Benchmark',
        '7a9e0c3b5d1f2e4a6c8b0d2f4e6a8c0b2d4f6e8a',
        [
          ['bench_fib_10', 128],
          ['bench_fib_20', 17620],
        ],
      ],
    ]);

    // Run again: every record is recognised, none stored twice.
    const again = await cli(FIXTURE, ['--branch', 'main']);
    expect(again.stdout).toBe(
      'imported 0 records (5 already there) from 5 entries of 4 benchmark sets\n',
    );
    expect((await get('/stats/get-metrics?limit=200')).metrics).toHaveLength(listed.length);

    // Bad input: one line, exit code 2, nothing sent.
    const missing = await cli(join(server.dir, 'nope.js'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^ci-stats import: cannot read .*nope\.js: .*\n$/);
    const wrong = join(server.dir, 'wrong.json');
    writeFileSync(wrong, '{"benchmarks": []}');
    const refused = await cli(wrong);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^ci-stats import: .*wrong\.json: expected github-action-benchmark's data\.js .*\n$/,
    );
    expect((await get('/stats/get-metrics?limit=200')).metrics).toHaveLength(listed.length);
  });

  it('reads imported history at its dates in the series, and judges the next record against it', async () => {
    const start = Date.UTC(2026, 0, 1);
    await storeMetric(server, me.projectId, start + 40 * DAY, {
      duration_ms: 5,
      ci: { branch: 'main' },
    });
    const other = await server.account();
    await storeMetric(server, other.projectId, Date.now(), { duration_ms: 1 });
    const lines = Array.from({ length: ENTRIES }, (_, i) =>
      JSON.stringify({
        id: `h${i}`,
        created_at: new Date(start + i * DAY).toISOString(),
        payload: { cold_ms: dayValue(i), directions: { cold_ms: 'lower' }, ci: { branch: 'main' } },
      }),
    );
    expect((await importLines(lines)).json()).toEqual({
      projectId: me.projectId,
      kind: 'metrics',
      imported: ENTRIES,
      skipped: 0,
    });

    // A bucket a day: each holds the entry of that day, read before the fold and after it.
    const series = `/stats/get-metric-series?key=cold_ms&from=${new Date(start).toISOString()}&to=${new Date(start + ENTRIES * DAY).toISOString()}&buckets=${ENTRIES}&branch=main`;
    const expected = Array.from({ length: ENTRIES }, (_, i) => ({
      start: new Date(start + i * DAY).toISOString(),
      count: 1,
      min: dayValue(i),
      max: dayValue(i),
      avg: dayValue(i),
      last: dayValue(i),
    }));
    expect((await get(series)).buckets).toMatchObject(expected);
    await foldStatistics(server, Date.now() + 1000);
    expect((await get(series)).buckets).toMatchObject(expected);
    const keys = (await get('/stats/get-metric-keys?limit=100')).keys as { key: string }[];
    expect(keys.find((k) => k.key === 'cold_ms')).toMatchObject({
      count: ENTRIES,
      last_value: dayValue(ENTRIES - 1),
      last_at: new Date(start + (ENTRIES - 1) * DAY).toISOString(),
    });
    // The same file again stores nothing twice.
    expect((await importLines(lines)).json()).toMatchObject({ imported: 0, skipped: ENTRIES });
    expect((await get(series)).buckets).toMatchObject(expected);

    // The next record of main is judged against the imported history: every value, the mean as
    // baseline (t_test, the default for a key with a direction).
    const sent = await server.call('POST', '/stats/ingest-metrics', {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        payload: { cold_ms: 480, ci: { branch: 'main', commit: 'f00d' } },
      },
    });
    expect(sent.statusCode).toBe(200);
    const compared = await get(`/stats/compare?record=${sent.json().id}`);
    const values = Array.from({ length: ENTRIES }, (_, i) => dayValue(i));
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const cold = compared.keys.find((k: { key: string }) => k.key === 'cold_ms');
    expect(cold).toMatchObject({ sample_size: ENTRIES, verdict: 'regression' });
    expect(cold.baseline).toBeCloseTo(mean, 9);
  });

  it('takes lines in any time order and skips those already stored, by id', async () => {
    const start = Date.UTC(2026, 2, 1);
    await storeMetric(server, me.projectId, start + 10 * DAY, { duration_ms: 5 });
    const line = (i: number) =>
      JSON.stringify({
        id: `m${i}`,
        created_at: new Date(start + i * DAY).toISOString(),
        payload: { duration_ms: i },
      });
    const send = importLines;
    const answer = await send([line(3), line(1), line(2)]);
    expect(answer.json()).toEqual({
      projectId: me.projectId,
      kind: 'metrics',
      imported: 3,
      skipped: 0,
    });
    const more = await send([line(2), line(4), line(4)]);
    expect(more.json()).toEqual({
      projectId: me.projectId,
      kind: 'metrics',
      imported: 1,
      skipped: 2,
    });
    const series = await get(
      `/stats/get-metric-series?key=duration_ms&from=${new Date(start + DAY).toISOString()}&to=${new Date(start + 5 * DAY).toISOString()}&buckets=4`,
    );
    expect(series.buckets.map((b: { count: number; avg: number }) => [b.count, b.avg])).toEqual([
      [1, 1],
      [1, 2],
      [1, 3],
      [1, 4],
    ]);
  });
});
