/**
 * Import of github-action-benchmark's history (issue 24): a gh-pages data.js of N entries (four
 * benchmark sets, one result each) goes into a server process on a new SQLite database (or
 * DATABASE_URL) that already stores a newer record, through `ci-stats import github-action-benchmark`
 * (dist/cli.js, batches of 5,000 through POST /stats/import-records): the back-dated path. Timed
 * end to end (parse, send, store); then the key counts are checked against N.
 * `node build/bench/import-history.js [records]` (default 100,000); prints one JSON line.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { benchBackend, createBenchProject, startBenchServer } from './bench-account.js';

const count = Number(process.argv[2] ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'import-history-'));
const SETS = ['Parser', 'Encoder', 'Startup', 'Query'];
const MINUTE = 60_000;

function dataJs(file: string, start: number) {
  const entries: Record<string, unknown[]> = Object.fromEntries(SETS.map((set) => [set, []]));
  for (let i = 0; i < count; i += 1) {
    const set = SETS[i % SETS.length] as string;
    entries[set]?.push({
      commit: {
        id: `${i.toString(16).padStart(40, '0')}`,
        message: 'change',
        url: 'https://example',
      },
      date: start + i * MINUTE,
      tool: 'go',
      benches: [
        { name: `Benchmark${set}`, value: 1000 + (i % 97), unit: 'ns/op', extra: '100 times' },
      ],
    });
  }
  writeFileSync(file, `window.BENCHMARK_DATA = ${JSON.stringify({ lastUpdate: start, entries })}`);
}

async function main() {
  const file = join(dir, 'data.js');
  const start = Date.UTC(2024, 0, 1);
  dataJs(file, start);
  const server = await startBenchServer(dir);
  try {
    const { apiKey, projectId } = await createBenchProject(server.url);
    const key = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    // A record newer than the whole history: the import is back-dated.
    await fetch(`${server.url}/stats/ingest-metrics`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ projectId, payload: { duration_ms: 1 } }),
    });

    const load = loadavg()[0];
    const began = performance.now();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['dist/cli.js', 'import', 'github-action-benchmark', '--file', file],
      {
        env: {
          CI_STATS_API_KEY: apiKey,
          CI_STATS_BASE_URL: server.url,
          CI_STATS_PROJECT_ID: projectId,
        },
      },
    );
    const seconds = (performance.now() - began) / 1000;
    // The key list waits until judging has caught up with the import (read-your-writes): a
    // minute at most here, the import's own time is the figure.
    let counted: number | null = null;
    try {
      const keys = (await (
        await fetch(`${server.url}/stats/get-metric-keys?projectId=${projectId}&limit=100`, {
          headers: key,
          signal: AbortSignal.timeout(60_000),
        })
      ).json()) as { keys: { key: string; count: number }[] };
      // Series the server made of the benchmarks (none yet: it does not read payload.benchmarks).
      counted = keys.keys
        .filter((k) => k.key.startsWith('bench/'))
        .reduce((n, k) => n + k.count, 0);
    } catch {
      counted = null;
    }
    console.log(
      JSON.stringify({
        scenario: 'import-history',
        backend: benchBackend(),
        records: count,
        seconds: Number(seconds.toFixed(1)),
        recordsPerSecond: Math.round(count / seconds),
        counted,
        cli: stdout.trim(),
        loadAverageBefore: Number(load?.toFixed(2)),
        loadAverageAfter: Number(loadavg()[0]?.toFixed(2)),
      }),
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
