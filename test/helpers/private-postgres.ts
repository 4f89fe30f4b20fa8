import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL cluster of the test's own (initdb in a temporary directory, on a free port), for
 * what must not be done to the shared one: here, a tablespace on a file system the test fills.
 * PostgreSQL refuses to run as root, so it runs as the `postgres` user (the tests run as root
 * where they can mount file systems).
 */

const BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  port: number;
  /** postgres://root@127.0.0.1:<port>/<database> */
  url(database: string): string;
  /** Hands a directory to the cluster's user (a tablespace's location must be theirs). */
  giveDirectory(dir: string): void;
  stop(): void;
}

const idOf = (flag: '-u' | '-g') => Number(execFileSync('id', [flag, 'postgres']).toString());

/** Runs one of PostgreSQL's programs as its user, in `cwd`. */
export function asPostgres(command: string, args: string[], cwd: string): Buffer {
  return execFileSync(join(BIN, command), args, {
    uid: idOf('-u'),
    gid: idOf('-g'),
    cwd,
    stdio: 'pipe',
  });
}

/** A temporary directory the cluster's user owns. */
export function postgresDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ci-stats-pg-'));
  chownSync(dir, idOf('-u'), idOf('-g'));
  return dir;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const data = postgresDirectory();
  asPostgres('initdb', ['-D', data, '-U', 'root', '-A', 'trust', '--no-sync', '-E', 'UTF8'], data);
  const port = await freePort();
  const options = `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c fsync=off`;
  asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(data, 'log'), '-w', 'start'], data);
  return {
    port,
    url: (database) => `postgres://root@127.0.0.1:${port}/${database}`,
    giveDirectory: (dir) => chownSync(dir, idOf('-u'), idOf('-g')),
    stop() {
      try {
        asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'], data);
      } finally {
        rmSync(data, { recursive: true, force: true });
      }
    },
  };
}
