import { createServer, type ServerResponse } from 'node:http';
import { Worker } from 'node:worker_threads';
import { hashApiKey } from '../server/domain/api-keys.js';
import type { Answers, Batch } from './two-thread-ceiling-writer.js';

/**
 * A yardstick for issue 31, not a server: about the least an E8 request can cost when the work is
 * split between two threads. The main thread does HTTP and the checks our hooks make on every
 * request (the Host header, the API key's SHA-256, a token bucket and its three headers, the
 * Idempotency-Key and the content type); a writer thread parses the body, checks it against E8's
 * contract and its units and directions, stores it in a SQLite file the server created, and
 * answers once the log is on disk. It leaves out the rest of the server's work: Fastify, the
 * statistics cells and time marks, judging and the records kept for it, the idempotency store,
 * the faithful-JSON check. With `BENCH_AGAINST_CEILING=1`, `bench:against` runs it beside both
 * builds (BENCHMARKS.md, "Two threads at most draw level with 5d7d2b8").
 *
 * Env: DATABASE_PATH (a file the server has migrated; its first project receives the metrics),
 * BOOTSTRAP_API_KEY, CEILING_BATCH (16: each full batch of that many requests is handed over at
 * once, the rest at the end of the loop turn), CEILING_FLUSH (`async`, as the server: COMMIT at
 * synchronous=NORMAL, then `fdatasync` of the log in libuv's pool, the next group waiting for it;
 * `commit`: FULL, the flush inside COMMIT). SIGTERM stops it without answering what is in flight.
 */

const key = process.env.BOOTSTRAP_API_KEY ?? '';
const BATCH = Number(process.env.CEILING_BATCH ?? 16);
const BURST = 10_000_000;
const accounts = new Map([[hashApiKey(key), 'bench']]);

const writer = new Worker(new URL('./two-thread-ceiling-writer.js', import.meta.url), {
  workerData: { path: process.env.DATABASE_PATH, flush: process.env.CEILING_FLUSH ?? 'async' },
});
const waiting = new Map<number, ServerResponse>();
let nextId = 0;
let batch: Batch = [];
let handOffQueued = false;

function handOff(): void {
  handOffQueued = false;
  if (batch.length === 0) return;
  writer.postMessage(batch);
  batch = [];
}

writer.on('message', (answers: Answers) => {
  for (let i = 0; i < answers.length; i += 3) {
    const response = waiting.get(answers[i] as number) as ServerResponse;
    waiting.delete(answers[i] as number);
    response.statusCode = answers[i + 1] as number;
    response.setHeader('content-type', 'application/json; charset=utf-8');
    response.end(answers[i + 2] as string);
  }
});
writer.on('error', (error) => {
  process.stderr.write(`writer: ${error}\n`);
  process.exit(1);
});

/** One token bucket, as the rate limit keeps one per key and class. */
const bucket = { tokens: BURST, at: Date.now() };
function take(): number {
  const now = Date.now();
  bucket.tokens = Math.min(BURST, bucket.tokens + ((now - bucket.at) * BURST) / 60_000);
  bucket.at = now;
  bucket.tokens -= 1;
  return bucket.tokens;
}

/** As `credentials.verify`: the key hashed on every request, its owner cached by hash. */
const accountOf = (presented: string): string | undefined => accounts.get(hashApiKey(presented));

const refuse = (response: ServerResponse, status: number, error: string) => {
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.end(JSON.stringify({ error }));
};

const server = createServer((request, response) => {
  if (request.method !== 'POST' || request.url !== '/stats/ingest-metrics') {
    return refuse(response, 404, 'Not found');
  }
  if (!request.headers.host) return refuse(response, 400, 'Missing Host header');
  if (!accountOf(String(request.headers['x-api-key']))) {
    return refuse(response, 401, 'Unauthorized');
  }
  const left = take();
  if (left < 0) return refuse(response, 429, 'Too many requests');
  response.setHeader('ratelimit-limit', BURST);
  response.setHeader('ratelimit-remaining', Math.floor(left));
  response.setHeader('ratelimit-reset', 0);
  if (request.headers['idempotency-key'] !== undefined) {
    return refuse(response, 400, 'Idempotency-Key is not kept by this yardstick');
  }
  if (!request.headers['content-type']?.startsWith('application/json')) {
    return refuse(response, 415, 'Unsupported Media Type');
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    nextId += 1;
    waiting.set(nextId, response);
    batch.push(nextId, Buffer.concat(chunks).toString('utf8'));
    // A group handed over before the loop turn ends lets the writer store it while this thread
    // reads the rest: handed over only at the turn's end, the 50 connections move as one convoy
    // and each thread waits for the other (BENCHMARKS.md).
    if (batch.length >= BATCH * 2) handOff();
    else if (!handOffQueued) {
      handOffQueued = true;
      setImmediate(handOff);
    }
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void writer.terminate().then(() => process.exit(0));
});
