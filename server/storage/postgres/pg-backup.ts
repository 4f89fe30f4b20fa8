import { execFile } from 'node:child_process';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { BackupError, backupStamp } from '../backup-error.js';
import { NewerSchemaError, newestVersion } from '../schema-version.js';
import { pgMigrations } from './pg-migrations.js';

/**
 * `npm run admin -- backup` and `restore` on PostgreSQL: PostgreSQL's own pg_dump and
 * pg_restore (from the PATH: the client tools of the server's major version or a later one),
 * with the checks and the swap around them. See docs/operations.md, Backup and restore.
 */

const run = promisify(execFile);

/** The URL without its password (which goes in PGPASSWORD, not on a command line `ps` shows). */
function toolArgs(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return {
    dbname: parsed.toString(),
    env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
  };
}

async function tool(name: 'pg_dump' | 'pg_restore', args: string[], env: NodeJS.ProcessEnv) {
  try {
    return await run(name, args, { env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { code, stderr } = error as { code?: string | number; stderr?: string };
    if (code === 'ENOENT') {
      throw new BackupError(`${name} not found on the PATH; install PostgreSQL's client tools`);
    }
    throw new BackupError(`${name} failed: ${(stderr ?? String(error)).trim().split('\n')[0]}`);
  }
}

/** The database a URL names, and a URL of the same server naming another one. */
const databaseOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));
function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** `pg_dump --format=custom` of the live database: one snapshot, replicas keep writing. */
export async function backupPostgres(
  url: string,
  file: string,
): Promise<{ file: string; bytes: number }> {
  if (existsSync(file)) throw new BackupError(`${file} exists; give a new file name`);
  const partial = `${file}.partial`;
  const { dbname, env } = toolArgs(url);
  rmSync(partial, { force: true });
  try {
    await tool('pg_dump', ['--format=custom', `--file=${partial}`, `--dbname=${dbname}`], env);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  renameSync(partial, file);
  return { file, bytes: statSync(file).size };
}

const connect = (url: string) =>
  postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 }) as postgres.Sql;

async function sessionsOn(admin: postgres.Sql, name: string): Promise<number> {
  const [row] = await admin`
    SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = ${name} AND pid <> pg_backend_pid()`;
  return (row as { n: number }).n;
}

/**
 * The archive restored into a new database beside the target (`<name>_restoring`), checked
 * there (pg_restore in one transaction, stopping at the first error; a ci-stats schema no newer
 * than this version's), then swapped in by renaming: the target becomes
 * `<name>_before_restore_<UTC time>` (kept: drop it once the restored one is right) and the new
 * one takes its name. Refused while anything is connected to the target; nothing is replaced
 * unless every check passed. Needs a role that may create databases (CREATEDB), connected
 * through the `postgres` maintenance database of the same server.
 */
export async function restorePostgres(
  url: string,
  file: string,
  at = new Date(),
): Promise<{ database: string; schema: number; previous: string | null }> {
  if (!existsSync(file)) throw new BackupError(`no backup at ${file}`);
  const { env } = toolArgs(url);
  // A file pg_restore cannot read the table of contents of is refused before anything is made.
  await tool('pg_restore', ['--list', file], env);

  const target = databaseOf(url);
  const staging = `${target.slice(0, 40)}_restoring`;
  const previous = `${target.slice(0, 40)}_before_restore_${backupStamp(at).replace('T', '').replace('Z', '')}`;
  const admin = connect(withDatabase(url, 'postgres'));
  try {
    const inUse = async () => {
      const n = await sessionsOn(admin, target);
      if (n > 0) {
        throw new BackupError(
          `the database ${target} is in use (${n} connection${n === 1 ? '' : 's'}); stop the servers first`,
        );
      }
    };
    await inUse();
    const [existing] = await admin`SELECT 1 AS one FROM pg_database WHERE datname = ${target}`;
    await admin.unsafe(`DROP DATABASE IF EXISTS ${quoted(staging)}`);
    await admin.unsafe(`CREATE DATABASE ${quoted(staging)}`);
    try {
      const { dbname } = toolArgs(withDatabase(url, staging));
      await tool(
        'pg_restore',
        [
          '--no-owner',
          '--no-privileges',
          '--exit-on-error',
          '--single-transaction',
          `--dbname=${dbname}`,
          file,
        ],
        env,
      );
      const schema = await schemaOf(withDatabase(url, staging), file);
      await inUse();
      if (existing)
        await admin.unsafe(`ALTER DATABASE ${quoted(target)} RENAME TO ${quoted(previous)}`);
      try {
        await admin.unsafe(`ALTER DATABASE ${quoted(staging)} RENAME TO ${quoted(target)}`);
      } catch (error) {
        if (existing)
          await admin.unsafe(`ALTER DATABASE ${quoted(previous)} RENAME TO ${quoted(target)}`);
        throw error;
      }
      return { database: target, schema, previous: existing ? previous : null };
    } catch (error) {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${quoted(staging)} WITH (FORCE)`);
      if ((error as { code?: string }).code === '55006') {
        throw new BackupError(`the database ${target} is in use; stop the servers first`);
      }
      throw error;
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** The restored database's schema version, refused when missing or newer than this version's. */
async function schemaOf(url: string, file: string): Promise<number> {
  const sql = connect(url);
  try {
    const [table] = await sql`SELECT to_regclass('public.schema_migrations') AS t`;
    if (!(table as { t: string | null }).t) {
      throw new BackupError(`${file} holds no ci-stats database (no schema_migrations)`);
    }
    const [row] = await sql`SELECT max(version)::int AS v FROM schema_migrations`;
    const schema = (row as { v: number | null }).v;
    if (schema === null)
      throw new BackupError(`${file} holds no ci-stats database (no migrations)`);
    const newest = newestVersion(pgMigrations);
    if (schema > newest) throw new BackupError(new NewerSchemaError(schema, newest).message);
    return schema;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
