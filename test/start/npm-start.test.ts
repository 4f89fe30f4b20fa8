import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { capture } from '../helpers/process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * `npm start` as an operator runs it: it starts the built server without compiling (the global
 * setup compiled it), and a SIGTERM or SIGINT to npm stops the server itself, gracefully, with
 * nothing left running. Before, npm's shell stood between npm and the server: the signal killed
 * the shell and left the server running.
 */

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => database.drop());

interface Started {
  npm: ChildProcess;
  server: number;
  url: string;
  output: () => string;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function npmStart(): Promise<Started> {
  // A process group of its own, as a terminal gives a command (for the Ctrl-C case).
  const npm = spawn('npm', ['start', '--silent'], {
    env: { ...process.env, ...database.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output = capture(npm);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start:\n${output()}`)), 30_000);
    npm.stdout?.on('data', () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output());
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    npm.once('exit', (code) => reject(new Error(`npm exited with ${code}:\n${output()}`)));
  });
  // The server is npm's child: npm runs the script through a shell that execs node.
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(npm.pid)], {
    encoding: 'utf8',
  });
  const [server] = children.trim().split(/\s+/).map(Number);
  return { npm, server: server as number, url, output };
}

async function stopped(started: Started): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (alive(started.server) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (started.npm.exitCode === null && started.npm.signalCode === null) {
    await once(started.npm, 'exit');
  }
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  it(`${signal} to npm start stops the server gracefully, leaving no process behind`, async () => {
    const started = await npmStart();
    try {
      expect(started.output()).not.toContain('Compiling');
      expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
      process.kill(started.npm.pid as number, signal);
      await stopped(started);
      expect(alive(started.server)).toBe(false);
      expect(started.output()).toContain('closing: finishing requests in flight');
      expect(started.output()).not.toContain('second');
      await expect(fetch(`${started.url}/healthz`)).rejects.toThrow();
    } finally {
      if (alive(started.server)) process.kill(started.server, 'SIGKILL');
    }
  });
}

it("a terminal's Ctrl-C, which reaches the server twice (npm forwards it), is one graceful stop", async () => {
  const started = await npmStart();
  try {
    // A request under way (headers and half its body sent) holds the shutdown open.
    const key = /API key:\s+(cis_\S+)/.exec(started.output())?.[1] as string;
    const projectId = /project id:\s+(\S+)/.exec(started.output())?.[1] as string;
    const body = JSON.stringify({ projectId, eventType: 'build' });
    const socket = connect(Number(new URL(started.url).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.write(
      `POST /stats/ingest-events HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(-(started.npm.pid as number), 'SIGINT');
    // The two deliveries often merge into one; the second is sent here as npm may deliver it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(started.server, 'SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.end(body.slice(5));
    await stopped(started);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(alive(started.server)).toBe(false);
    expect(started.output()).toContain('closing: finishing requests in flight');
    expect(started.output()).not.toContain('second SIGINT');
  } finally {
    if (alive(started.server)) process.kill(started.server, 'SIGKILL');
  }
});
