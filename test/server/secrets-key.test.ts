import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretsKeyError } from '../../server/outbox/secrets-key.js';
import { chatJob, notifyWebhook } from '../helpers/chat-jobs.js';
import { executeSql, selectRows } from '../helpers/database.js';
import { FakeService } from '../helpers/fake-service.js';
import { run, SERVER_ENTRY } from '../helpers/process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Issue 22, part 5: on SQLite without SECRETS_KEY, the key that seals webhook tokens is made at
 * first start in `secrets.key` beside the database (mode 0600). The server refuses to start when
 * that file is open to other users, is not a readable key, or is missing while the database holds
 * tokens sealed with it; tokens an earlier version stored in the clear are sealed at start-up.
 */

const WEBHOOK_ID = '123456789012345678';
const TOKEN = `CLEAR_TOKEN_${'z'.repeat(40)}`;

let database: TestDatabase;
let server: TestServer | undefined;
let discord: FakeService;
beforeEach(async () => {
  database = await createTestDatabase();
  discord = new FakeService().fallback({ status: 500 });
  await discord.start();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await database.drop();
  await discord.stop();
});

const keyFile = () => join(database.dir, 'secrets.key');
const start = async (env: Record<string, string> = {}) => {
  server = await startTestServer(
    { DISCORD_API_ORIGIN: discord.origin, OUTBOX_RETRY_BASE_MS: '3600000', ...env },
    database,
  );
  return server;
};
const stop = async () => {
  await server?.app.close();
  server = undefined;
};
const refusal = async () => {
  try {
    await start();
  } catch (error) {
    expect(error).toBeInstanceOf(SecretsKeyError);
    return (error as Error).message;
  }
  throw new Error('the server started');
};

/** A pending notification, as a server without a key stored it: the token in the clear. */
const clearJob = JSON.stringify(chatJob(`/api/webhooks/${WEBHOOK_ID}/${TOKEN}`, WEBHOOK_ID));

describe('the key file beside a SQLite database', () => {
  it('is made at first start, mode 0600, and kept: the same key at the next start', async () => {
    await start();
    const key = readFileSync(keyFile(), 'utf8');
    expect(key).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
    await stop();
    await start();
    expect(readFileSync(keyFile(), 'utf8')).toBe(key);
  });

  it('SECRETS_KEY_FILE puts it elsewhere; SECRETS_KEY, when set, is the key and no file is made', async () => {
    const elsewhere = join(database.dir, 'keys', 'stats.key');
    mkdirSync(join(database.dir, 'keys'));
    await start({ SECRETS_KEY_FILE: elsewhere });
    expect(statSync(elsewhere).mode & 0o777).toBe(0o600);
    expect(readdirSync(database.dir)).not.toContain('secrets.key');
    await stop();
    await start({ SECRETS_KEY: 'k'.repeat(40) });
    expect(readdirSync(database.dir)).not.toContain('secrets.key');
  });

  it('the server refuses to start when it is open to others, not a file, or too short', async () => {
    await start();
    await stop();
    chmodSync(keyFile(), 0o640);
    expect(await refusal()).toBe(
      `the key file ${keyFile()} is open to other users (mode 0640): make it readable by the server's user only (chmod 600 ${keyFile()})`,
    );
    chmodSync(keyFile(), 0o400);
    await start();
    await stop();
    chmodSync(keyFile(), 0o600);
    writeFileSync(keyFile(), 'short\n');
    expect(await refusal()).toBe(`the key file ${keyFile()} must hold at least 32 characters`);
  });

  it('a missing key file with sealed notifications in the database: refused; put back: delivered', async () => {
    server = await start();
    await notifyWebhook(server, await server.account(), WEBHOOK_ID, TOKEN);
    await discord.waitFor(1);
    await stop();
    const key = readFileSync(keyFile());
    const moved = join(database.dir, 'moved.key');
    writeFileSync(moved, key, { mode: 0o600 });
    rmSync(keyFile());
    expect(await refusal()).toBe(
      `the key file ${keyFile()} is missing, but 1 pending notification(s) in the database are sealed with the key it held: put the file back, or name it in SECRETS_KEY_FILE (if it is lost for good, see docs/security.md)`,
    );
    expect(readdirSync(database.dir)).not.toContain('secrets.key');
    discord.fallback({ status: 200, body: { id: '1' } });
    // Its retry is due now.
    await executeSql(database, 'UPDATE outbox SET next_attempt_at = 0');
    await (await start({ SECRETS_KEY_FILE: moved })).app.ready();
    await expect
      .poll(async () => selectRows(database, 'SELECT status FROM outbox'), { timeout: 10_000 })
      .toEqual([{ status: 'delivered' }]);
    expect(discord.requests.at(-1)?.path).toBe(`/api/webhooks/${WEBHOOK_ID}/${TOKEN}`);
  });

  it('a token an older version stored in the clear is sealed at start-up, in the file and the WAL', async () => {
    await start();
    await stop();
    const now = Date.now() + 3_600_000;
    await executeSql(
      database,
      `INSERT INTO outbox (kind, payload, next_attempt_at, created_at, updated_at)
       VALUES ('chat-notification', ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      clearJob,
      now,
    );
    const holding = () =>
      readdirSync(database.dir)
        .filter((name) => name.startsWith('stats.db'))
        .filter((name) => readFileSync(join(database.dir, name)).includes(TOKEN));
    expect(holding().length).toBeGreaterThan(0);
    await start();
    const [row] = await selectRows(database, 'SELECT payload FROM outbox');
    expect(String(row?.payload)).toMatch(/"path":"sealed:v1:/);
    expect(holding()).toEqual([]);
  });
});

describe('the server process', () => {
  it('exits with code 2 and one line when the key file is open to others', async () => {
    mkdirSync(database.dir, { recursive: true });
    writeFileSync(keyFile(), `${'a'.repeat(64)}\n`, { mode: 0o644 });
    chmodSync(keyFile(), 0o644);
    const { code, stderr } = await run([SERVER_ENTRY], {
      ...database.env,
      PORT: '0',
      LOG_LEVEL: 'silent',
    });
    expect(code).toBe(2);
    expect(stderr).toBe(
      `Cannot start: the key file ${keyFile()} is open to other users (mode 0644): make it readable by the server's user only (chmod 600 ${keyFile()})\n`,
    );
  });
});
