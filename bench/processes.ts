import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';

/** The benchmark's child processes: the production server, the reference, the flood. */

export interface Service {
  child: ChildProcess;
  url: string;
  stdout: string;
}

/** Starts `node ...args` (in `cwd`, this process's by default) and waits for its URL. */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<Service> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', () => {
      const match = /(?:listening|Server listening at) (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  return { child, url, stdout };
}

export async function stop(service: Service): Promise<number> {
  const peak = peakRssMb(service.child.pid);
  service.child.kill('SIGTERM');
  await once(service.child, 'exit');
  return peak;
}

/** The process's high-water mark of resident memory (Linux /proc), in MiB. */
function peakRssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}
