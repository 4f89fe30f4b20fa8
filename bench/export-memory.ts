/**
 * Export's memory (issue 29, docs/export.md): a server process on a new SQLite database (or
 * DATABASE_URL) takes N metric records through POST /stats/import-records, then streams them out
 * with GET /stats/export while its resident memory is sampled every 10 ms from /proc.
 * `node build/bench/export-memory.js [records]` (default 200,000); prints one JSON line.
 */
import {
  createWriteStream,
  mkdtempSync,
  openAsBlob,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '../test/helpers/process.js';

const count = Number(process.argv[2] ?? 200_000);
const dir = mkdtempSync(join(tmpdir(), 'export-memory-'));
const ADMIN = 'bench-admin-token-0123456789';

const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

async function main() {
  const file = join(dir, 'in.ndjson');
  const out = createWriteStream(file);
  out.write('{"format":"ci-stats-records","version":1,"kind":"metrics"}\n');
  const start = Date.UTC(2025, 0, 1);
  for (let i = 0; i < count; i += 1) {
    const line = `{"id":"m${i}","created_at":"${new Date(start + i * 1000).toISOString()}","payload":{"duration_ms":${(i * 7919) % 10000},"size":{"bundle":${i % 977}},"branch":"main"}}\n`;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));

  const env: Record<string, string> = { ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' };
  if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
  else env.DATABASE_PATH = join(dir, 'stats.db');
  const server = await startServerProcess(env);
  const pid = server.child.pid as number;
  try {
    const admin = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((res) => res.json() as Promise<Record<string, string>>);
    const { accountId, apiKey } = await admin('/admin/accounts', { label: 'bench' });
    const { id: projectId } = await admin(`/admin/accounts/${accountId}/projects`, { name: 'b' });
    const key = { 'x-api-key': apiKey as string };

    let began = performance.now();
    const imported = await fetch(`${server.url}/stats/import-records?projectId=${projectId}`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/x-ndjson' },
      body: await openAsBlob(file),
    });
    const importAnswer = await imported.json();
    const importS = (performance.now() - began) / 1000;

    // Settled: the fold and the judging worker done with the import.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid));
    }, 10);
    began = performance.now();
    const res = await fetch(`${server.url}/stats/export?projectId=${projectId}&kind=metrics`, {
      headers: key,
    });
    let bytes = 0;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
    }
    const exportS = (performance.now() - began) / 1000;
    clearInterval(sampler);
    console.log(
      JSON.stringify({
        backend: process.env.DATABASE_URL ? 'postgres' : 'sqlite',
        records: count,
        fileMb: +(statSync(file).size / 1e6).toFixed(1),
        import: importAnswer,
        importS: +importS.toFixed(1),
        exportMb: +(bytes / 1e6).toFixed(1),
        exportS: +exportS.toFixed(1),
        rssBeforeMb: +before.toFixed(1),
        rssPeakMb: +peak.toFixed(1),
        rssGrowthMb: +(peak - before).toFixed(1),
      }),
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
