/**
 * Export's memory (issue 29, docs/export.md): a server process on a new SQLite database (or
 * DATABASE_URL) takes N metric records through POST /stats/import-records (100,000 a request),
 * then streams them out with GET /stats/export while its resident memory is sampled every 10 ms
 * from /proc. The export must be the imported file byte for byte (the file is written as an export
 * is): their sha256 are compared.
 * `node build/bench/export-memory.js [records]` (default 200,000); prints one JSON line.
 */
import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  openAsBlob,
  rmSync,
  statSync,
  type WriteStream,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchBackend, createBenchProject, startBenchServer } from './bench-account.js';
import { measureExport } from './export-measure.js';

const count = Number(process.argv[2] ?? 200_000);
const PART = 100_000;
const dir = mkdtempSync(join(tmpdir(), 'export-memory-'));

async function main() {
  // The whole file (what the export must equal) and the same lines in parts of PART records,
  // each with the header: the parts are imported one after another, in order (the export is in
  // stored order), so no single request outlasts the client's 300 s wait for an answer.
  const header = '{"format":"ci-stats-records","version":1,"kind":"metrics"}\n';
  const file = join(dir, 'in.ndjson');
  const out = createWriteStream(file);
  const parts: string[] = [];
  let part: WriteStream | undefined;
  const write = async (stream: WriteStream, text: string) => {
    if (!stream.write(text)) await new Promise<void>((resolve) => stream.once('drain', resolve));
  };
  const end = (stream: WriteStream) => new Promise<void>((resolve) => stream.end(() => resolve()));
  await write(out, header);
  const start = Date.UTC(2025, 0, 1);
  for (let i = 0; i < count; i += 1) {
    if (i % PART === 0) {
      if (part) await end(part);
      parts.push(join(dir, `part-${parts.length}.ndjson`));
      part = createWriteStream(parts[parts.length - 1] as string);
      await write(part, header);
    }
    const line = `{"id":"m${i}","created_at":"${new Date(start + i * 1000).toISOString()}","payload":{"duration_ms":${(i * 7919) % 10000},"size":{"bundle":${i % 977}},"branch":"main"}}\n`;
    await write(out, line);
    await write(part as WriteStream, line);
  }
  await end(out);
  if (part) await end(part);

  const fileHash = createHash('sha256');
  for await (const chunk of createReadStream(file)) fileHash.update(chunk as Buffer);
  const fileSha256 = fileHash.digest('hex');

  const server = await startBenchServer(dir);
  const pid = server.child.pid as number;
  try {
    const { apiKey, projectId } = await createBenchProject(server.url);
    const key = { 'x-api-key': apiKey };

    const began = performance.now();
    const importAnswer = { imported: 0, skipped: 0, parts: parts.length };
    for (const path of parts) {
      const imported = await fetch(`${server.url}/stats/import-records?projectId=${projectId}`, {
        method: 'POST',
        headers: { ...key, 'content-type': 'application/x-ndjson' },
        body: await openAsBlob(path),
      });
      const answer = (await imported.json()) as { imported: number; skipped: number };
      if (!imported.ok) throw new Error(`import of ${path}: ${JSON.stringify(answer)}`);
      importAnswer.imported += answer.imported;
      importAnswer.skipped += answer.skipped;
    }
    const importS = (performance.now() - began) / 1000;

    // Settled: the fold and the judging worker done with the import.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const measured = await measureExport(
      `${server.url}/stats/export?projectId=${projectId}&kind=metrics`,
      key,
      pid,
    );
    console.log(
      JSON.stringify({
        backend: benchBackend(),
        records: count,
        fileMb: +(statSync(file).size / 1e6).toFixed(1),
        import: importAnswer,
        identical: measured.sha256 === fileSha256,
        sha256: fileSha256,
        exportSha256: measured.sha256,
        importS: +importS.toFixed(1),
        ...measured.figures,
      }),
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
