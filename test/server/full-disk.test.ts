import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { FakeService } from '../helpers/fake-service.js';
import { FormClient } from '../helpers/form-client.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import {
  describeOnSmallFilesystem,
  expectStorageFull,
  mountSmallFilesystem,
  type SmallFilesystem,
  storedEvents,
} from '../helpers/small-filesystem.js';
import { createTestDatabase } from '../helpers/test-database.js';

/**
 * Issue 22, part 4: SQLite on a 16 MB tmpfs that fills up. A write that fails for lack of space
 * is 503 with `Retry-After` and the reason, nothing acknowledged is lost and the file stays
 * intact; /healthz says the storage is full until there is room again; and the outbox, whose
 * outcomes cannot be recorded meanwhile, pauses instead of sending the same notifications again
 * (before: thousands of Discord POSTs for a few hundred notifications).
 */

const NOTIFICATIONS = 20;
/** Deliveries the worker runs at once (outbox-worker.ts): the ones in flight when the disk fills. */
const IN_FLIGHT = 8;

describeOnSmallFilesystem('a full disk under SQLite', () => {
  let disk: SmallFilesystem;
  let discord: FakeService;
  let server: TestServer;
  let me: TestAccount;

  beforeEach(async () => {
    disk = mountSmallFilesystem(16);
    discord = new FakeService().fallback({ status: 200, body: { id: '1' } });
    await discord.start();
    server = await startTestServer(
      { DISCORD_API_ORIGIN: discord.origin, RATE_LIMIT_INGEST_PER_MINUTE: '0' },
      await createTestDatabase({ backend: 'sqlite' }, disk.dir),
    );
    me = await server.account();
  });
  afterEach(async () => {
    await server?.app.close();
    await discord.stop();
    disk.unmount();
  });

  const ingest = (eventType: string, webhook?: number) =>
    server.call('POST', Paths.ingestEvents, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        eventType,
        ...(webhook === undefined
          ? {}
          : {
              chatWebhook: {
                url: `https://discord.com/api/webhooks/${1000 + webhook}/token-${webhook}`,
                title: `n${webhook}`,
              },
            }),
      },
    });
  const health = () => server.call('GET', Paths.health);

  it('503 with Retry-After while full, /healthz says so, the outbox pauses; all recovers with room', async () => {
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) acknowledged.push((await ingest(`before-${i}`)).json().id);
    // Notifications whose deliveries are in flight (Discord holds its answers) when the disk fills.
    discord.hold();
    for (let i = 0; i < NOTIFICATIONS; i++) {
      const res = await ingest('deploy', i);
      expect(res.statusCode).toBe(200);
      acknowledged.push(res.json().id);
    }
    await discord.waitFor(IN_FLIGHT);
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    await browser.get('/dashboard/projects');
    const filler = disk.fill();

    const refused = await ingest('while-full');
    expectStorageFull(refused);
    expect(refused.json().error).toContain('storage is full');
    expectStorageFull(await health());
    const form = await browser.post('/dashboard/projects', { name: 'while full' });
    expect(form.statusCode).toBe(503);
    expect(form.headers['retry-after']).toBe('30');
    expect(form.body).toContain('storage is full');

    // Discord accepts the deliveries in flight; their outcomes cannot be recorded: paused.
    discord.release();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(discord.requests).toHaveLength(IN_FLIGHT);
    expect((await health()).statusCode).toBe(503);

    // Room again: the outcomes held are recorded, the rest delivered, each notification once.
    rmSync(filler);
    await expect.poll(async () => (await health()).statusCode, { timeout: 10_000 }).toBe(200);
    await expect.poll(() => discord.requests.length, { timeout: 15_000 }).toBe(NOTIFICATIONS);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const paths = discord.requests.map((request) => request.path);
    expect(new Set(paths).size).toBe(NOTIFICATIONS);
    expect(paths).toHaveLength(NOTIFICATIONS);

    const after = await ingest('after');
    expect(after.statusCode).toBe(200);
    acknowledged.push(after.json().id);
    const events = await storedEvents(server, me);
    expect(events.map((event) => event.id).sort()).toEqual([...acknowledged].sort());
    expect(
      events
        .filter((event) => event.notification !== null)
        .map((event) => event.notification?.status),
    ).toEqual(Array(NOTIFICATIONS).fill('delivered'));
    const check = new Database(server.database.location, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
  }, 60_000);
});
