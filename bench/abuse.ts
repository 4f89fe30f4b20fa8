import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { type Service, startProcess, stop } from './processes.js';

/**
 * Abusive clients beside a normal one (issue 14): a normal client's latency is measured alone,
 * then while the abuse goes on, in the same run.
 * - `stalled`: 2,000 connections that send headers and part of a body, then nothing.
 * - `flood`: one key sends get-events?limit=200 as fast as 50 connections allow, with the
 *   default rate limits and, as the reference, with none.
 * - `bodies`: connections announcing a 1 GiB body with a wrong key, then sending it as fast as
 *   the server takes it.
 */

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const NORMAL_SAMPLES = Number(process.env.BENCH_NORMAL_SAMPLES ?? 400);
const STALLED = Number(process.env.BENCH_STALLED ?? 2000);
const FLOOD_SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 10);
const FLOOD_CONNECTIONS = 50;
/** The server under test; another build (say, of an older commit) to compare with. */
const SERVER_ENTRY = process.env.BENCH_SERVER_ENTRY ?? 'build/server/main.js';
const BIG_BODIES = Number(process.env.BENCH_BIG_BODIES ?? 50);
/** What each big-body connection tries to send at most (it announces a gigabyte). */
const BIG_BODY_SEND_LIMIT = 64 * 1024 ** 2;

interface Latency {
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
}

export interface Account {
  apiKey: string;
  projectId: string;
}

/** One request as a bench client sends it: the answer's status and text (pages are not JSON). */
export async function call(
  origin: string,
  path: string,
  init: { method?: string; key?: string; admin?: boolean; body?: unknown } = {},
) {
  const res = await fetch(`${origin}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.key ? { 'x-api-key': init.key } : {}),
      ...(init.admin ? { authorization: `Bearer ${ADMIN_TOKEN}` } : {}),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, text: await res.text() };
}

/** A new account with one project, made through the admin API. */
export async function newAccount(origin: string, name = 'bench'): Promise<Account> {
  const account = await call(origin, '/admin/accounts', { admin: true, body: {} });
  const { accountId, apiKey } = JSON.parse(account.text) as { accountId: string; apiKey: string };
  const project = await call(origin, `/admin/accounts/${accountId}/projects`, {
    admin: true,
    body: { name },
  });
  return { apiKey, projectId: (JSON.parse(project.text) as { id: string }).id };
}

/**
 * A CI client: E7 one request after another (`NORMAL_SAMPLES` of them, or until `until` settles);
 * latency as it sees it, HTTP included.
 */
async function normalClient(
  origin: string,
  account: Account,
  until?: Promise<unknown>,
): Promise<Latency> {
  const [latency] = await alternatingClient([{ origin, account }], until);
  return latency as Latency;
}

/**
 * The same client taking turns between servers (one request to each in turn), so that each is
 * sampled over the same moments of a shared, noisy machine.
 */
async function alternatingClient(
  servers: { origin: string; account: Account }[],
  until?: Promise<unknown>,
): Promise<Latency[]> {
  let over = false;
  void until?.then(() => {
    over = true;
  });
  const times: number[][] = servers.map(() => []);
  const statuses: Record<string, number>[] = servers.map(() => ({}));
  for (let i = 0; until ? !over : i < NORMAL_SAMPLES + 10; i++) {
    for (const [n, { origin, account }] of servers.entries()) {
      const started = performance.now();
      const res = await call(origin, '/stats/ingest-events', {
        key: account.apiKey,
        body: { projectId: account.projectId, eventType: 'build', payload: { i } },
      });
      const counts = statuses[n] as Record<string, number>;
      counts[res.status] = (counts[res.status] ?? 0) + 1;
      if (until || i >= 10) times[n]?.push(performance.now() - started);
    }
  }
  return times.map((list, n) => {
    list.sort((a, b) => a - b);
    const rank = (q: number) => Number((list[Math.floor(q * (list.length - 1))] ?? 0).toFixed(2));
    return { p50: rank(0.5), p99: rank(0.99), max: rank(1), statuses: statuses[n] ?? {} };
  });
}

const serverEnv = (dir: string, env: Record<string, string> = {}) => ({
  DATABASE_PATH: join(dir, 'stats.db'),
  PORT: '0',
  LOG_LEVEL: 'warn',
  ADMIN_TOKEN,
  ...env,
});

async function withServer<T>(
  dir: string,
  env: Record<string, string>,
  use: (server: Service) => Promise<T>,
): Promise<T> {
  // LOG_LEVEL=warn hides the line the benchmark waits for: start at info, which logs no request.
  const server = await startProcess([SERVER_ENTRY], {
    ...serverEnv(dir, env),
    LOG_LEVEL: 'info',
  });
  try {
    return await use(server);
  } finally {
    await stop(server);
  }
}

/** What one stalled connection got: the server's bytes, and whether (and when) it was closed. */
interface Stalled {
  socket: Socket;
  text: string;
  closedAt: number | undefined;
}

function openStalled(origin: string, account: Account): Promise<Stalled> {
  const url = new URL(origin);
  return new Promise((resolve) => {
    const body = JSON.stringify({ projectId: account.projectId, eventType: 'stalled' });
    const stalled: Stalled = {
      socket: connect(Number(url.port), url.hostname, () => {
        stalled.socket.write(
          `POST /stats/ingest-events HTTP/1.1\r\nHost: bench\r\nX-API-KEY: ${account.apiKey}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length + 100}\r\n\r\n${body}`,
        );
        resolve(stalled);
      }),
      text: '',
      closedAt: undefined,
    };
    stalled.socket.setEncoding('latin1');
    stalled.socket.on('data', (chunk: string) => {
      stalled.text += chunk;
    });
    stalled.socket.on('error', () => {});
    stalled.socket.on('close', () => {
      stalled.closedAt = Date.now();
      resolve(stalled);
    });
  });
}

/** Sorts what the stalled connections got: 408 JSON, other answers, nothing at all. */
function tallyStalled(connections: Stalled[]) {
  const tally = { answered408Json: 0, otherAnswers: 0, fiveXx: 0, notJson: 0, noAnswer: 0 };
  for (const { text } of connections) {
    if (text === '') {
      tally.noAnswer += 1;
      continue;
    }
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
    const body = text.slice(text.indexOf('\r\n\r\n') + 4);
    let json = false;
    try {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      json = Object.keys(parsed).length === 1 && typeof parsed.error === 'string';
    } catch {}
    if (!json) tally.notJson += 1;
    if (status >= 500) tally.fiveXx += 1;
    if (status === 408 && json) tally.answered408Json += 1;
    else tally.otherAnswers += 1;
  }
  return tally;
}

/** 2,000 stalled bodies (defect 5): a normal client's latency while they are open, and their end. */
export async function stalledScenario(dir: string) {
  return withServer(dir, {}, async (server) => {
    const normal = await newAccount(server.url);
    const attacker = await newAccount(server.url);
    const unloaded = await normalClient(server.url, normal);
    process.stderr.write(`stalled: unloaded p50 ${unloaded.p50} ms p99 ${unloaded.p99} ms\n`);

    const openedAt = Date.now();
    const connections: Stalled[] = [];
    // In batches, so that the listen backlog is not what refuses them.
    for (let opened = 0; opened < STALLED; opened += 100) {
      const batch = Math.min(100, STALLED - opened);
      connections.push(
        ...(await Promise.all(
          Array.from({ length: batch }, () => openStalled(server.url, attacker)),
        )),
      );
    }
    const openSeconds = (Date.now() - openedAt) / 1000;
    const stillOpen = () => connections.filter((c) => c.closedAt === undefined).length;
    const openBefore = stillOpen();
    const loaded = await normalClient(server.url, normal);
    const openAfter = stillOpen();
    process.stderr.write(
      `stalled: ${openAfter} of ${STALLED} open, p50 ${loaded.p50} ms p99 ${loaded.p99} ms\n`,
    );

    // Then wait for the request timeout (REQUEST_TIMEOUT_MS, 30 s by default) to end them.
    const deadline = openedAt + 60_000;
    while (stillOpen() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const closedTimes = connections
      .map((c) => (c.closedAt ?? Number.NaN) - openedAt)
      .filter((ms) => !Number.isNaN(ms));
    for (const c of connections) c.socket.destroy();
    return {
      stalled: STALLED,
      openSeconds,
      openWhileMeasuring: { before: openBefore, after: openAfter },
      unloaded,
      loaded,
      allClosedAfterSeconds: closedTimes.length ? Math.max(...closedTimes) / 1000 : null,
      ...tallyStalled(connections),
    };
  });
}

async function flood(spec: Record<string, unknown>) {
  const child = spawn(process.execPath, ['build/bench/flood.js'], {
    env: { ...process.env, FLOOD: JSON.stringify(spec) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  await once(child, 'exit');
  return JSON.parse(stdout) as {
    sent: number;
    answered: number;
    statuses: Record<string, number>;
    fiveXx: number;
    notJsonError: number;
    errors: number;
    rps: number;
  };
}

/**
 * One key's flood of get-events?limit=200 (defect 7): another key's latency during it. Measured
 * twice: against its own figures alone (before the flood and after it), and side by side with a
 * twin server (same build, same settings, no flood) that the same client takes turns with, so
 * that both see the same moments of the machine's load.
 */
async function floodRun(dir: string, env: Record<string, string>) {
  mkdirSync(join(dir, 'twin'), { recursive: true });
  return withServer(join(dir, 'twin'), env, (twin) =>
    withServer(dir, env, async (server) => {
      const normal = await newAccount(server.url);
      const attacker = await newAccount(server.url);
      const control = await newAccount(twin.url);
      // 200 events in the attacker's project, so each page of the flood reads 200.
      for (let i = 0; i < 200; i++) {
        await call(server.url, '/stats/ingest-events', {
          key: attacker.apiKey,
          body: { projectId: attacker.projectId, eventType: 'seed', payload: { i } },
        });
      }
      const pair = [
        { origin: server.url, account: normal },
        { origin: twin.url, account: control },
      ];
      const seconds = () => new Promise((r) => setTimeout(r, FLOOD_SECONDS * 1000));
      // Alone for as long as the flood lasts, before it and again after it.
      const [unloaded, twinBefore] = await alternatingClient(pair, seconds());
      const flooding = flood({
        url: `${server.url}/stats/get-events?projectId=${attacker.projectId}&limit=200`,
        method: 'GET',
        headers: { 'x-api-key': attacker.apiKey },
        connections: FLOOD_CONNECTIONS,
        seconds: FLOOD_SECONDS,
      });
      // From the flood's first request to its last, its initial burst included.
      const [loaded, twinDuring] = await alternatingClient(pair, flooding);
      const outcome = await flooding;
      const [after, twinAfter] = await alternatingClient(pair, seconds());
      const ratio = (a: Latency | undefined, b: Latency | undefined) =>
        Number(((a?.p99 ?? 0) / (b?.p99 ?? 1)).toFixed(2));
      return {
        unloaded: unloaded as Latency,
        loaded: loaded as Latency,
        after: after as Latency,
        twin: { before: twinBefore, during: twinDuring, after: twinAfter },
        flood: outcome,
        ratio: ratio(loaded, unloaded),
        ratioAfter: ratio(loaded, after),
        // The same pairing before and after the flood: how far the two servers differ unloaded.
        ratioTwin: ratio(loaded, twinDuring),
        ratioTwinBefore: ratio(unloaded, twinBefore),
        ratioTwinAfter: ratio(after, twinAfter),
      };
    }),
  );
}

export async function floodScenario(dir: string) {
  const limited = await floodRun(join(dir, 'limited'), {});
  process.stderr.write(`flood (default limits): ${JSON.stringify(limited)}\n`);
  const unlimited = await floodRun(join(dir, 'unlimited'), {
    RATE_LIMIT_INGEST_PER_MINUTE: '0',
    RATE_LIMIT_OTHER_PER_MINUTE: '0',
    RATE_LIMIT_OTHER_CONCURRENCY: '0',
  });
  process.stderr.write(`flood (no limits): ${JSON.stringify(unlimited)}\n`);
  return { limited, unlimited };
}

/** Bytes the process has read so far, sockets included (Linux /proc/<pid>/io `rchar`). */
function bytesRead(pid: number | undefined): number {
  return Number(/rchar:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
}

/** One connection pushing a body the server should not read; what it could send, what it got. */
function pushBody(
  origin: string,
): Promise<{ text: string; sent: number; closedByServer: boolean }> {
  const url = new URL(origin);
  const chunk = Buffer.alloc(64 * 1024, 'a');
  return new Promise((resolve) => {
    let text = '';
    let sent = 0;
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        'POST /stats/ingest-events HTTP/1.1\r\nHost: bench\r\nX-API-KEY: cis_wrong\r\n' +
          `Content-Type: application/json\r\nContent-Length: ${1024 ** 3}\r\n\r\n`,
      );
      pump();
    });
    socket.setEncoding('latin1');
    socket.on('data', (data: string) => {
      text += data;
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve({ text, sent, closedByServer: sent < BIG_BODY_SEND_LIMIT }));
    function pump(): void {
      while (!socket.destroyed && sent < BIG_BODY_SEND_LIMIT) {
        sent += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (sent >= BIG_BODY_SEND_LIMIT) socket.destroy();
    }
  });
}

/** Unauthenticated gigabyte bodies (defect 6): answered and closed unread; a normal client meanwhile. */
export async function bodiesScenario(dir: string) {
  return withServer(dir, {}, async (server) => {
    const normal = await newAccount(server.url);
    const unloaded = await normalClient(server.url, normal);
    // Each of BIG_BODIES clients starts again as soon as its connection is closed.
    const until = Date.now() + FLOOD_SECONDS * 1000;
    const readBefore = bytesRead(server.child.pid);
    const pushed: Awaited<ReturnType<typeof pushBody>>[] = [];
    const client = async () => {
      while (Date.now() < until) pushed.push(await pushBody(server.url));
    };
    const pushing = Promise.all(Array.from({ length: BIG_BODIES }, client));
    const loaded = await normalClient(server.url, normal, pushing);
    await pushing;
    const serverReadMiB = (bytesRead(server.child.pid) - readBefore) / 1024 ** 2;
    const tally = { answered401Json: 0, fiveXx: 0, notJson: 0, noAnswer: 0, closedByServer: 0 };
    for (const { text, closedByServer } of pushed) {
      if (closedByServer) tally.closedByServer += 1;
      if (text === '') {
        tally.noAnswer += 1;
        continue;
      }
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      let json = false;
      try {
        const parsed = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as object;
        json = Object.keys(parsed).length === 1 && 'error' in parsed;
      } catch {}
      if (!json) tally.notJson += 1;
      if (status >= 500) tally.fiveXx += 1;
      if (status === 401 && json) tally.answered401Json += 1;
    }
    const mib = pushed.reduce((n, p) => n + p.sent, 0) / 1024 ** 2;
    return {
      clients: BIG_BODIES,
      connections: pushed.length,
      seconds: FLOOD_SECONDS,
      unloaded,
      loaded,
      ...tally,
      sentMiB: Math.round(mib),
      serverReadMiB: Number(serverReadMiB.toFixed(1)),
      announcedMiB: pushed.length * 1024,
    };
  });
}
