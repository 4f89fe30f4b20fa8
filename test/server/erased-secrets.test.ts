import { once } from 'node:events';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeService } from '../helpers/fake-service.js';
import { plantedDiscord, plantedEnv, plantSecrets, secretsIn } from '../helpers/planted-secrets.js';
import { startServerProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';

/**
 * Issue 14, defect 4: a finished delivery's webhook token is erased from the database file
 * itself, not only from its row: after the deliveries and a clean shutdown, no file of the
 * database holds a token's bytes (the freed space is overwritten: SQLite's secure_delete).
 */

const API_KEY = 'bootstrap-key-for-the-erasure-test-0123456789';
const TOKENS = [
  'delivered_token_ERASE_ME_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  'refused_token_ERASE_ME_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
];

let dir: string;
let discord: FakeService;
beforeEach(async () => {
  dir = tempDir();
  // The first delivery succeeds, the second is refused for good (404: unknown webhook).
  discord = new FakeService().queue({ status: 204 }, { status: 404 });
  await discord.start();
});
afterEach(async () => {
  await discord.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('no webhook token remains in the database files after delivery and shutdown', async () => {
  const server = await startServerProcess({
    DATABASE_PATH: join(dir, 'stats.db'),
    BOOTSTRAP_API_KEY: API_KEY,
    DISCORD_API_ORIGIN: discord.origin,
  });
  const call = async (method: string, path: string, body?: unknown) =>
    (
      await fetch(`${server.url}${path}`, {
        method,
        headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json() as Promise<Record<string, unknown>>;

  const { projects } = (await call('GET', '/stats/get-projects')) as {
    projects: { id: string }[];
  };
  const projectId = projects[0]?.id;
  for (const token of TOKENS) {
    const url = `https://discord.com/api/webhooks/123456789012345678/${token}`;
    const answer = await call('POST', '/stats/ingest-events', {
      projectId,
      eventType: 'deploy',
      chatWebhook: { url, title: 'Deployed' },
    });
    expect(answer.message).toBe('Event created successfully.');
  }
  await discord.waitFor(2);
  // Both jobs are finished (delivered, failed) before the server stops.
  await expect
    .poll(async () => {
      const { events } = (await call('GET', `/stats/get-events?projectId=${projectId}`)) as {
        events: { notification: { status: string } }[];
      };
      return events.map((event) => event.notification.status).sort();
    })
    .toEqual(['delivered', 'failed']);
  expect(await server.stop()).toBe(0);

  const files = readdirSync(dir).filter((name) => name.startsWith('stats.db'));
  expect(files).toContain('stats.db');
  for (const name of files) {
    const bytes = readFileSync(join(dir, name));
    for (const token of TOKENS) {
      // The token's distinctive middle, as `strings stats.db` would show it.
      expect(bytes.includes('ERASE_ME'), `${name} holds a webhook token`).toBe(false);
      expect(bytes.includes(token.slice(0, 20))).toBe(false);
    }
  }
});

/**
 * Issue 22, part 5: on SQLite too, a webhook token is sealed before it is stored (with a key kept
 * beside the database, made at first start): neither the file, nor its WAL after kill -9, nor a
 * backup holds one, whether its notification was delivered, refused or still waits; and no log
 * line at LOG_LEVEL=debug holds a key, a token or a session.
 */
it('no planted secret in the database, its WAL after kill -9, a backup, or the debug log', async () => {
  const planted = plantedDiscord();
  await planted.start();
  try {
    const database = join(dir, 'stats.db');
    const server = await startServerProcess({
      DATABASE_PATH: database,
      ...plantedEnv(planted),
    });
    const secrets = await plantSecrets(server.url, planted);
    // A backup taken while the server runs, as the README says.
    const backup = join(dir, 'backup.db');
    const reader = new Database(database, { readonly: true });
    await reader.backup(backup);
    reader.close();
    server.child.kill('SIGKILL');
    await once(server.child, 'exit');

    const files = readdirSync(dir).filter((name) => name.endsWith('.db') || name.includes('.db-'));
    expect(files).toEqual(expect.arrayContaining(['stats.db', 'stats.db-wal', 'backup.db']));
    const found = Object.fromEntries([
      ...files.map((name) => [name, secretsIn(readFileSync(join(dir, name)), secrets)]),
      ['log', secretsIn(server.output(), secrets)],
    ]);
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((where) => [where, []])));
    expect(server.output()).toContain('"url":"/share/[redacted]"');
    // The key that sealed them: beside the database, the server's user's only.
    expect(statSync(join(dir, 'secrets.key')).mode & 0o777).toBe(0o600);
  } finally {
    await planted.stop();
  }
});
