import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config.js';

/** The server cannot start with this key file (exit code 2, like a bad configuration). */
export class SecretsKeyError extends Error {}

/** Characters a key must have at least, as SECRETS_KEY. */
const MIN_LENGTH = 32;

/**
 * Where the key that seals the outbox's secrets (secret-box.ts) is kept when SECRETS_KEY is unset:
 * SECRETS_KEY_FILE, else on SQLite `secrets.key` in the database file's directory (outside the
 * file, its WAL and its backups). On PostgreSQL, whose replicas must share one key, only a file
 * named by SECRETS_KEY_FILE is read, never made.
 */
export function secretsKeyFileOf(
  config: Pick<Config, 'secretsKeyFile' | 'databasePath' | 'databaseUrl'>,
): string | undefined {
  if (config.secretsKeyFile !== undefined) return config.secretsKeyFile;
  return config.databaseUrl === undefined
    ? join(dirname(config.databasePath), 'secrets.key')
    : undefined;
}

/**
 * The key: SECRETS_KEY when set; else the key file's, which must be readable and writable by its
 * owner only (mode 0600 or 0400: the server refuses to start otherwise). A missing file is made
 * at first start (32 random bytes, in hex, mode 0600) unless the database already holds
 * notifications sealed with a key (`sealedJobs` counts them): then the file was lost or moved,
 * and the server refuses to start rather than leave those notifications unreadable.
 */
export async function loadSecretsKey(
  config: Pick<Config, 'secretsKey' | 'secretsKeyFile' | 'databasePath' | 'databaseUrl'>,
  sealedJobs: () => Promise<number>,
): Promise<string | undefined> {
  if (config.secretsKey !== undefined) return config.secretsKey;
  const file = secretsKeyFileOf(config);
  if (file === undefined) return undefined;
  const existing = readKeyFile(file);
  if (existing !== undefined) return existing;
  if (config.databaseUrl !== undefined) {
    throw new SecretsKeyError(`SECRETS_KEY_FILE ${file} does not exist`);
  }
  const sealed = await sealedJobs();
  if (sealed > 0) {
    throw new SecretsKeyError(
      `the key file ${file} is missing, but ${sealed} pending notification(s) in the database are sealed with the key it held: put the file back, or name it in SECRETS_KEY_FILE (if it is lost for good, see docs/security.md)`,
    );
  }
  return createKeyFile(file);
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

/** The key in `file`, or undefined when there is no such file. */
function readKeyFile(file: string): string | undefined {
  let mode: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new SecretsKeyError(`the key file ${file} is not a file`);
    mode = stat.mode & 0o777;
  } catch (error) {
    if (error instanceof SecretsKeyError) throw error;
    if (codeOf(error) === 'ENOENT') return undefined;
    throw new SecretsKeyError(`cannot read the key file ${file} (${codeOf(error)})`);
  }
  if ((mode & 0o077) !== 0) {
    throw new SecretsKeyError(
      `the key file ${file} is open to other users (mode ${mode.toString(8).padStart(4, '0')}): make it readable by the server's user only (chmod 600 ${file})`,
    );
  }
  let key: string;
  try {
    key = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new SecretsKeyError(`cannot read the key file ${file} (${codeOf(error)})`);
  }
  if (key.length < MIN_LENGTH) {
    throw new SecretsKeyError(`the key file ${file} must hold at least ${MIN_LENGTH} characters`);
  }
  return key;
}

/** A new key in a new file (mode 0600), on disk before it seals anything. */
function createKeyFile(file: string): string {
  const key = randomBytes(32).toString('hex');
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    // Another process made it a moment ago: theirs is the key.
    if (codeOf(error) === 'EEXIST') return readKeyFile(file) as string;
    throw new SecretsKeyError(`cannot create the key file ${file} (${codeOf(error)})`);
  }
  try {
    writeSync(fd, `${key}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const directory = openSync(dirname(file), 'r');
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
  return key;
}
