/**
 * How far judging trails ingest during a burst (issue 23): `node build/bench/judging-lag.js`
 * starts the built server on a new SQLite file, sends E8 for BENCH_SECONDS (5) from 50
 * connections, and prints every half second the last judged record against the last stored one
 * (`verdict_progress` against `max(seq)`, read from a second, read-only connection), then for 4
 * seconds after the burst. A server whose judging keeps up shows the two close together; one
 * whose judging is paced behind a busy loop shows the gap growing until the burst ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { API_KEY, ingestBodies, measure, serverEnv } from './load.js';
import { startProcess, stop } from './processes.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const AFTER_MS = 4_000;
const EVERY_MS = 500;

const dir = mkdtempSync(join(tmpdir(), 'ci-stats-judging-lag-'));
const path = join(dir, 'stats.db');
const server = await startProcess(['build/server/main.js'], serverEnv(path, 'full'));
const projectId = /project id:\s+(\S+)/.exec(server.stdout)?.[1] as string;
const db = new Database(path, { readonly: true });
const stored = db.prepare('SELECT coalesce(max(seq), 0) FROM metrics').pluck();
const judged = db.prepare('SELECT metrics FROM verdict_progress').pluck();
const started = performance.now();
const line = () =>
  `${((performance.now() - started) / 1000).toFixed(1)} s: judged ${judged.get()} of ${stored.get()}`;
const timer = setInterval(() => process.stdout.write(`${line()}\n`), EVERY_MS);
try {
  const burst = await measure(
    {
      name: 'E8',
      url: `${server.url}/stats/ingest-metrics`,
      method: 'POST',
      body: ingestBodies(projectId).metric,
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
    },
    SECONDS,
  );
  process.stdout.write(`E8: ${burst.rps} req/s over ${SECONDS} s\n`);
  await new Promise((resolve) => setTimeout(resolve, AFTER_MS));
  process.stdout.write(`end: ${line()}\n`);
} finally {
  clearInterval(timer);
  db.close();
  await stop(server);
  rmSync(dir, { recursive: true, force: true });
}
