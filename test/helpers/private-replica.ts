import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  asPostgres,
  freePort,
  type PrivatePostgres,
  postgresDirectory,
} from './private-postgres.js';

/**
 * A streaming replica of a private cluster (private-postgres.ts): `pg_basebackup -R` copies the
 * primary and writes the standby's settings (standby.signal, primary_conninfo), and the copy is
 * started on a port of its own. The machine's shared cluster refuses replication connections;
 * a private one made by initdb accepts them from 127.0.0.1 (trust, wal_level=replica).
 */
export interface PrivateReplica {
  /** postgres://root@127.0.0.1:<port>/<database> */
  url(database: string): string;
  /** Stops it (fast shutdown), keeping its files to start again. */
  stop(): void;
  start(): void;
  /** Stops it and removes its files. */
  remove(): void;
}

export async function startPrivateReplica(primary: PrivatePostgres): Promise<PrivateReplica> {
  const data = postgresDirectory();
  asPostgres(
    'pg_basebackup',
    [
      '-D',
      data,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'root',
    ],
    data,
  );
  const port = await freePort();
  const options = `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () =>
    asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(data, 'log'), '-w', 'start'], data);
  const stop = () => asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'], data);
  start();
  return {
    url: (database) => `postgres://root@127.0.0.1:${port}/${database}`,
    stop,
    start,
    remove() {
      try {
        stop();
      } catch {
        // Already stopped.
      } finally {
        rmSync(data, { recursive: true, force: true });
      }
    },
  };
}
