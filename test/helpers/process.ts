import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export const SERVER_ENTRY = 'build/server/main.js';

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote so far. */
  output(): string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Collects a child's stdout and stderr. */
export function capture(child: ChildProcess): () => string {
  let text = '';
  child.stdout?.on('data', (chunk) => {
    text += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    text += chunk;
  });
  return () => text;
}

/**
 * Runs the built server as `npm start` does, on an ephemeral port, and waits until it listens;
 * under `wrapper` (a command and its arguments before node's, such as strace's) when given.
 */
export async function startServerProcess(
  env: Record<string, string>,
  wrapper?: { command: string; prefix: string[] },
): Promise<ServerProcess> {
  const node = [process.execPath, SERVER_ENTRY];
  const [command, ...args] = wrapper ? [wrapper.command, ...wrapper.prefix, ...node] : node;
  const child = spawn(command as string, args, {
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = capture(child);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output()}`)), 20_000);
    child.stdout?.on('data', () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output());
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output()}`));
    });
  });
  return {
    child,
    url,
    output,
    async stop(signal = 'SIGTERM') {
      // Already gone (a signal such as kill -9 leaves exitCode null, signalCode set).
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}

/** Runs `command` to completion, with an environment of its own only. */
export async function runCommand(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}

/** Runs a Node program to completion. */
export function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCommand(process.execPath, args, { PATH: process.env.PATH, ...env });
}
