import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { EventPage } from '../../contract/readback.js';
import { notifyWebhook } from '../helpers/chat-jobs.js';
import { FakeService } from '../helpers/fake-service.js';
import { plantedDiscord, plantedEnv, plantSecrets, secretsIn } from '../helpers/planted-secrets.js';
import { run, startServerProcess } from '../helpers/process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { connect, createTestDatabase } from '../helpers/test-database.js';

/**
 * PostgreSQL's counterpart of erased-secrets.test.ts. PostgreSQL keeps a row's old versions until
 * VACUUM, and does not zero the space VACUUM frees: a delivered job's webhook token stays in the
 * table's pages, and its WAL, after its payload is cleared. With SECRETS_KEY the token is sealed
 * before it is stored, so no page and no WAL segment ever holds it; without, the test sees it
 * (which shows that the search finds what it looks for).
 */

const WEBHOOK_ID = '123456789012345678';
let discord: FakeService;
let server: TestServer | undefined;
beforeEach(async () => {
  discord = new FakeService().fallback({ status: 200, body: { id: '1' } });
  await discord.start();
});
afterEach(async () => {
  await server?.close();
  await discord.stop();
});

/** Delivers one notification; then the files of the outbox table, checkpointed (and vacuumed). */
async function deliverAndRead(env: Record<string, string>, token: string, vacuum: boolean) {
  server = await startTestServer({ DISCORD_API_ORIGIN: discord.origin, ...env });
  const me = await server.account();
  await notifyWebhook(server, me, WEBHOOK_ID, token);
  await expect
    .poll(async () => {
      const page = await (server as TestServer).call(
        'GET',
        `/stats/get-events?projectId=${me.projectId}`,
        { key: me.apiKey },
      );
      return (page.json() as EventPage).events[0]?.notification?.status;
    })
    .toBe('delivered');
  expect(discord.requests.at(-1)?.path).toBe(`/api/webhooks/${WEBHOOK_ID}/${token}`);
  const sql = connect(server.database.location);
  try {
    if (vacuum) await sql`VACUUM outbox`;
    await sql`CHECKPOINT`;
    const [where] = await sql<{ dir: string; file: string }[]>`
      SELECT current_setting('data_directory') AS dir, pg_relation_filepath('outbox') AS file`;
    const file = join(where?.dir as string, where?.file as string);
    // Run where the tests run: the database's files must be readable here (CI: same machine).
    expect(existsSync(file), `${file} is not readable here`).toBe(true);
    return { table: readFileSync(file), wal: join(where?.dir as string, 'pg_wal') };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

const tokenOf = () => `ERASE_ME_${randomBytes(24).toString('hex')}`;

/** Whether a WAL segment written since `since` holds the text. */
function walHolds(wal: string, text: string, since: number) {
  return walSegmentsSince(wal, since).some((bytes) => bytes.includes(text));
}

it('without SECRETS_KEY a delivered token stays in the table’s pages (what the search finds)', async () => {
  const since = Date.now() - 1000;
  const token = tokenOf();
  const { table, wal } = await deliverAndRead({}, token, false);
  expect(table.includes(token)).toBe(true);
  expect(walHolds(wal, token, since)).toBe(true);
});

it('with SECRETS_KEY no page of the table and no WAL segment ever holds the token', async () => {
  for (const vacuum of [false, true]) {
    const since = Date.now() - 1000;
    const token = tokenOf();
    const { table, wal } = await deliverAndRead(
      { SECRETS_KEY: randomBytes(32).toString('hex') },
      token,
      vacuum,
    );
    expect(table.includes(token)).toBe(false);
    expect(table.includes(token.slice(9, 30))).toBe(false);
    expect(walHolds(wal, token, since)).toBe(false);
    await server?.close();
    server = undefined;
  }
});

/** Every file of the database `name` (its tables, indexes and TOAST), once checkpointed. */
async function databaseFiles(url: string, name: string): Promise<{ files: string[]; wal: string }> {
  const sql = connect(url);
  try {
    await sql`CHECKPOINT`;
    const [where] = await sql<{ dir: string; oid: number }[]>`
      SELECT current_setting('data_directory') AS dir, oid FROM pg_database WHERE datname = ${name}`;
    const base = join(where?.dir as string, 'base', String(where?.oid));
    expect(existsSync(base), `${base} is not readable here`).toBe(true);
    return {
      files: readdirSync(base).map((file) => join(base, file)),
      wal: join(where?.dir as string, 'pg_wal'),
    };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/**
 * Issue 22, part 5, on PostgreSQL: after a run that plants every kind of secret (with SECRETS_KEY,
 * at LOG_LEVEL=debug), no file of the database, no WAL segment written meanwhile, no pg_dump and
 * no log line holds one.
 */
it('no planted secret in the database’s files, the WAL, a pg_dump or the debug log', async () => {
  const planted = plantedDiscord();
  await planted.start();
  const database = await createTestDatabase();
  const since = Date.now() - 1000;
  try {
    const process = await startServerProcess({
      ...database.env,
      SECRETS_KEY: randomBytes(32).toString('hex'),
      ...plantedEnv(planted),
    });
    const secrets = await plantSecrets(process.url, planted);
    const dump = await run(['-e', DUMP, database.location], {});
    expect(dump.code, dump.stderr).toBe(0);
    expect(await process.stop()).toBe(0);

    const { files, wal } = await databaseFiles(database.location, database.name as string);
    const segments = walSegmentsSince(wal, since);
    expect(segments.length).toBeGreaterThan(0);
    const found = {
      files: files.flatMap((file) => secretsIn(readFileSync(file), secrets)),
      wal: segments.flatMap((bytes) => secretsIn(bytes, secrets)),
      dump: secretsIn(dump.stdout, secrets),
      log: secretsIn(process.output(), secrets),
    };
    expect(found).toEqual({ files: [], wal: [], dump: [], log: [] });
    expect(process.output()).toContain('"url":"/share/[redacted]"');
  } finally {
    await planted.stop();
    await database.drop();
  }
});

/**
 * The WAL segments written since `since`, read. A checkpoint of the shared cluster (other test
 * files write to it) may recycle a segment, renaming it, between the listing and its read: then
 * the directory is listed again, so that each segment is read, under its new name if it has one.
 */
function walSegmentsSince(wal: string, since: number): Buffer[] {
  for (let attempt = 1; ; attempt++) {
    try {
      return readdirSync(wal)
        .filter((name) => /^[0-9A-F]{24}$/.test(name))
        .map((name) => join(wal, name))
        .filter((path) => statSync(path).mtimeMs >= since)
        .map((path) => readFileSync(path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 5) throw error;
    }
  }
}

/** pg_dump's plain SQL of the database named by the script's argument, on stdout. */
const DUMP = `
const { execFileSync } = require('node:child_process');
process.stdout.write(execFileSync('pg_dump', ['--no-owner', process.argv[1]], { maxBuffer: 1 << 28 }));
`;
