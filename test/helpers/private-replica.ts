import { readFileSync, rmSync } from 'node:fs';
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
  /**
   * The statements it ran, one a line as `<application_name>|<statement>` (with `logStatements`;
   * else none): what a connection ran, where pg_stat_activity keeps only its last one.
   */
  statements(): string[];
  /** Stops it (fast shutdown), keeping its files to start again. */
  stop(): void;
  start(): void;
  /** Stops it and removes its files. */
  remove(): void;
}

/** A log line's start as `log_line_prefix='%a|'` writes it; other lines continue the last one. */
const ENTRY = /^[^|\s]*\|[A-Z]+: {2}/;
const STATEMENT = /^([^|\s]*)\|LOG: {2}(?:statement|execute [^:]*): /;

/** The statements of a server's log (simple and extended protocol), each on one line. */
function statementsIn(text: string): string[] {
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (ENTRY.test(line) || entries.length === 0) entries.push(line);
    else entries[entries.length - 1] += ` ${line.trim()}`;
  }
  return entries.flatMap((entry) => {
    const match = STATEMENT.exec(entry);
    return match ? [`${match[1]}|${entry.slice(match[0].length)}`] : [];
  });
}

export async function startPrivateReplica(
  primary: PrivatePostgres,
  /** Log every statement (a cost a benchmark must not pay). */
  { logStatements = false } = {},
): Promise<PrivateReplica> {
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
  const log = join(data, 'log');
  const logging = logStatements ? " -c log_statement=all -c log_line_prefix='%a|'" : '';
  const options = `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c fsync=off${logging}`;
  const start = () =>
    asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', log, '-w', 'start'], data);
  const stop = () => asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'], data);
  start();
  return {
    url: (database) => `postgres://root@127.0.0.1:${port}/${database}`,
    statements: () => statementsIn(readFileSync(log, 'utf8')),
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
