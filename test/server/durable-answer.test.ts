import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServerProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';

/**
 * "A 2xx means on disk", checked as the kernel sees it: the built server runs under strace, and
 * at every `200` it writes to a socket, every write to the SQLite log made before it must have
 * been followed by a finished flush of the log (fdatasync or fsync) that began after that write.
 * No test can pull a plug; this is what a plug would test. With DURABILITY=normal (no flush) the
 * same check must find answers given before their flush, or it could not fail.
 *
 * strace is installed by .ci/run; the test fails rather than skips in CI without it.
 */

const KEY = 'durable-answer-key-0123456789abcdefghijklmnopqrstuvwxyz';
const REQUESTS = 20;
const hasStrace = spawnSync('strace', ['-V']).status === 0;

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the server under strace, sends E7 requests one after another, returns the trace and the
 * server's process id (its main thread's id). With
 * DURABILITY=full the log is flushed on the event loop or in the thread pool (flush-timing.ts):
 * `inlineFlushMaxMs` 1000 makes every flush the first kind, 0 the second.
 */
async function traced(
  durability: 'full' | 'normal',
  inlineFlushMaxMs = 0,
): Promise<{ trace: string; pid: string }> {
  const trace = join(dir, `trace-${durability}-${inlineFlushMaxMs}.txt`);
  const server = await startServerProcess(
    {
      DATABASE_PATH: join(dir, `stats-${durability}-${inlineFlushMaxMs}.db`),
      BOOTSTRAP_API_KEY: KEY,
      DURABILITY: durability,
      INLINE_FLUSH_MAX_MS: String(inlineFlushMaxMs),
      RATE_LIMIT_INGEST_PER_MINUTE: '0',
    },
    {
      command: 'strace',
      prefix: ['-f', '-y', '-qq', '-e', 'trace=pwrite64,write,writev,fdatasync,fsync', '-o', trace],
    },
  );
  try {
    const projectId = /project id:\s+(\S+)/.exec(server.output())?.[1] as string;
    for (let i = 0; i < REQUESTS; i++) {
      const res = await fetch(`${server.url}/stats/ingest-events`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ projectId, eventType: 'build', payload: { status: 'success', i } }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
  } finally {
    // The server itself, not strace: strace killed would leave it stopped under a dead tracer.
    process.kill(Number(pidOf(server.output())), 'SIGTERM');
    if (server.child.exitCode === null) await once(server.child, 'exit');
  }
  return { trace: readFileSync(trace, 'utf8'), pid: pidOf(server.output()) };
}

const pidOf = (output: string) => /"pid":(\d+)/.exec(output)?.[1] ?? 'none';

/** A syscall's line, whole or the start or end of one that another thread's line interrupted. */
const LINE =
  /^(?:\[pid\s+(\d+)\]\s+|(\d+)\s+)?(?:(\w+)\((\d+)<([^>]*)>(.*?)(<unfinished \.\.\.>|\) += (-?\d+).*)|<\.\.\. (\w+) resumed>.*\) += (-?\d+).*)$/;

/** Answers `200` written before every earlier write to the log had been flushed. */
function answersBeforeTheirFlush(trace: string): { answers: number; early: number } {
  let written = 0; // writes to the log so far
  let flushed = 0; // of them, how many a finished flush covers
  const started = new Map<
    string,
    { call: string; wal: boolean; covers: number; http200: boolean }
  >();
  let answers = 0;
  let early = 0;
  const finish = (call: string, wal: boolean, covers: number, http200: boolean) => {
    if (wal && call === 'pwrite64') written += 1;
    if (wal && (call === 'fdatasync' || call === 'fsync')) flushed = Math.max(flushed, covers);
    if (http200) {
      answers += 1;
      if (flushed < written) early += 1;
    }
  };
  for (const line of trace.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const pid = m[1] ?? m[2] ?? 'main';
    if (m[3]) {
      const call = m[3];
      const wal = (m[5] ?? '').endsWith('-wal');
      const http200 = (call === 'write' || call === 'writev') && /HTTP\/1\.1 200/.test(m[6] ?? '');
      // A flush covers the writes made before it began.
      if (m[7] === '<unfinished ...>') started.set(pid, { call, wal, covers: written, http200 });
      else if (Number(m[8]) >= 0) finish(call, wal, written, http200);
    } else if (m[9]) {
      const call = started.get(pid);
      started.delete(pid);
      if (call && call.call === m[9] && Number(m[10]) >= 0) {
        finish(call.call, call.wal, call.covers, call.http200);
      }
    }
  }
  return { answers, early };
}

it.skipIf(!hasStrace && !process.env.CI)(
  'with DURABILITY=full every 200 follows a flush of the log that covers every earlier write to it',
  { timeout: 60_000 },
  async () => {
    expect(hasStrace).toBe(true);
    for (const inlineFlushMaxMs of [0, 1000]) {
      const { trace, pid } = await traced('full', inlineFlushMaxMs);
      const full = answersBeforeTheirFlush(trace);
      expect(full.answers).toBe(REQUESTS);
      expect(full.early).toBe(0);
      // Each way was taken: every flush of the log made by the main thread (its id is the
      // process's), or none of them.
      const flushers = new Set(
        [...trace.matchAll(/^(\d+)\s+fdatasync\(\d+<[^>]*-wal>/gm)].map((m) => m[1]),
      );
      expect(flushers.size).toBeGreaterThan(0);
      if (inlineFlushMaxMs > 0) expect([...flushers]).toEqual([pid]);
      else expect(flushers.has(pid)).toBe(false);
    }
    // The control: without the flush the same check sees answers ahead of the disk.
    const normal = answersBeforeTheirFlush((await traced('normal')).trace);
    expect(normal.answers).toBe(REQUESTS);
    expect(normal.early).toBeGreaterThan(0);
  },
);
