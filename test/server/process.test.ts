import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { selectColumn } from '../helpers/database.js';
import { FakeService } from '../helpers/fake-service.js';
import { run, SERVER_ENTRY, startServerProcess } from '../helpers/process.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/test-database.js';

/** The built server as `npm start` runs it: first start, bootstrap, revocation by the CLI, shutdown. */

// On PostgreSQL an empty database, as an operator creates it: the server migrates it.
let database: TestDatabase;
let env: Record<string, string>;
beforeEach(async () => {
  database = await createTestDatabase({ empty: true });
  env = database.env;
});
afterEach(() => database.drop());

it('first start creates an account and a default project and prints the key once', async () => {
  // SQLite: in a directory that does not exist yet.
  if (!onPostgres) env = { DATABASE_PATH: join(database.dir, 'nested', 'stats.db') };
  const server = await startServerProcess(env);
  const key = /API key:\s+(cis_\S+)/.exec(server.output())?.[1] as string;
  const projectId = /project id:\s+(\S+)/.exec(server.output())?.[1] as string;
  expect(key).toBeDefined();
  // PostgreSQL keeps delivered webhook tokens in its pages unless they are sealed: it says so.
  expect(server.output().includes('SECRETS_KEY is not set')).toBe(onPostgres);
  expect(server.output()).toMatch(/account id: +[0-9a-f-]{36}\n/);
  expect(server.output()).toMatch(/key id: +[0-9a-f-]{36}\n/);

  const projects = await fetch(`${server.url}/stats/get-projects`, {
    headers: { 'x-api-key': key },
  });
  expect(await projects.json()).toEqual({
    projects: [{ id: projectId, name: 'default', created_at: expect.any(String) }],
  });
  const ingest = await fetch(`${server.url}/stats/ingest-metrics`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ projectId, payload: { ok: 1 } }),
  });
  expect(ingest.status).toBe(200);
  // The key appears once, in the banner, never in a log line.
  expect(server.output().split(key).length - 1).toBe(1);
  expect(await server.stop()).toBe(0);

  const again = await startServerProcess({ ...env, SECRETS_KEY: 'k'.repeat(32) });
  expect(again.output()).not.toContain('API key');
  // With the key set, PostgreSQL has nothing to warn about.
  if (onPostgres) expect(again.output()).not.toContain('SECRETS_KEY');
  expect(await again.stop()).toBe(0);
});

it('a port in use is one line and exit code 1, and the key is shown at the next start', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as AddressInfo).port;
  try {
    const failed = await run([SERVER_ENTRY], { ...env, PORT: String(port), HOST: '127.0.0.1' });
    expect({ code: failed.code, stdout: failed.stdout, stderr: failed.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: `Cannot listen on 127.0.0.1:${port}: the port is already in use.\n`,
    });
  } finally {
    blocker.close();
  }
  const server = await startServerProcess(env);
  const key = /API key:\s+(cis_\S+)/.exec(server.output())?.[1] as string;
  expect(key).toBeDefined();
  const res = await fetch(`${server.url}/stats/get-projects`, { headers: { 'x-api-key': key } });
  expect(res.status).toBe(200);
  expect(await server.stop()).toBe(0);
});

it('BOOTSTRAP_API_KEY is used on an empty database and never printed', async () => {
  const key = 'my-own-bootstrap-key-with-enough-entropy-123';
  const server = await startServerProcess({
    ...env,
    BOOTSTRAP_API_KEY: key,
  });
  expect(server.output()).not.toContain(key);
  const res = await fetch(`${server.url}/stats/get-projects`, { headers: { 'x-api-key': key } });
  expect(res.status).toBe(200);
  expect(await server.stop('SIGINT')).toBe(0);
});

it('a key revoked by the CLI while the server runs is refused at once', async () => {
  const server = await startServerProcess(env);
  const created = await run(['build/server/admin-cli.js', 'account:create'], env);
  const { keyId, apiKey } = JSON.parse(created.stdout);
  const get = () => fetch(`${server.url}/stats/get-projects`, { headers: { 'x-api-key': apiKey } });
  // The server caches the key after this request...
  expect((await get()).status).toBe(200);
  const revoked = await run(['build/server/admin-cli.js', 'key:revoke', '--key', keyId], env);
  expect(revoked.code).toBe(0);
  // ...and still refuses it on the very next one.
  expect((await get()).status).toBe(401);
  expect(await server.stop()).toBe(0);
});

it('SIGTERM lets a request in flight finish, then exits 0', async () => {
  const improvmx = new FakeService().queue({ status: 200, body: { success: true }, delayMs: 700 });
  await improvmx.start();
  const key = 'graceful-shutdown-test-key-0123456789abcdef';
  const server = await startServerProcess({
    ...env,
    BOOTSTRAP_API_KEY: key,
    FORWARDING_PROVIDER: 'improvmx',
    IMPROVMX_API_KEY: 'k',
    IMPROVMX_API_URL: improvmx.origin,
  });
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  expect((await post('/account/update-display-name', { display_name: 'graceful' })).status).toBe(
    200,
  );
  // The provider takes 700 ms; the signal arrives while the request waits for it.
  const inFlight = post('/email-forwarding/email-forwarding-toggle', {
    enabled: true,
    email: 'g@example.com',
  });
  await improvmx.waitFor(1);
  const exited = server.stop('SIGTERM');
  const res = await inFlight;
  expect(res.status).toBe(200);
  expect(await exited).toBe(0);
  await improvmx.stop();

  // The change it acknowledged is on disk.
  const again = await startServerProcess(env);
  const status = await fetch(`${again.url}/email-forwarding/email-forwarding-status`, {
    headers: { 'x-api-key': key },
  });
  expect(await status.json()).toEqual({ enabled: true, email: 'g@example.com' });
  expect(await again.stop()).toBe(0);
});

// SQLite only: the WAL file beside the database is SQLite's.
it.skipIf(onPostgres)('SIGTERM closes the database cleanly and exits 0', async () => {
  const server = await startServerProcess(env);
  expect(existsSync(`${database.location}-wal`)).toBe(true);
  expect(await server.stop('SIGTERM')).toBe(0);
  // A clean close checkpoints the WAL and removes it.
  expect(existsSync(`${database.location}-wal`)).toBe(false);
});

it.runIf(onPostgres)('SIGTERM closes its connections to the database and exits 0', async () => {
  const server = await startServerProcess(env);
  const connections = () =>
    selectColumn(
      database,
      'SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
  expect((await connections())[0]).toBeGreaterThan(0);
  expect(await server.stop('SIGTERM')).toBe(0);
  expect(await connections()).toEqual([0]);
});
