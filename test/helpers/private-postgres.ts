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
  /** postgres://root@127.0.0.1:<port>/<database> */
  url(database: string): string;
  /** Hands a directory to the cluster's user (a tablespace's location must be theirs). */
  giveDirectory(dir: string): void;
  stop(): void;
}

const idOf = (flag: '-u' | '-g') => Number(execFileSync('id', [flag, 'postgres']).toString());

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const uid = idOf('-u');
  const gid = idOf('-g');
  const data = mkdtempSync(join(tmpdir(), 'ci-stats-pg-'));
  chownSync(data, uid, gid);
  const asPostgres = (command: string, args: string[]) =>
    execFileSync(join(BIN, command), args, { uid, gid, cwd: data, stdio: 'pipe' });
  asPostgres('initdb', ['-D', data, '-U', 'root', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c fsync=off`;
  asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(data, 'log'), '-w', 'start']);
  return {
    url: (database) => `postgres://root@127.0.0.1:${port}/${database}`,
    giveDirectory: (dir) => chownSync(dir, uid, gid),
    stop() {
      try {
        asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(data, { recursive: true, force: true });
      }
    },
  };
}
