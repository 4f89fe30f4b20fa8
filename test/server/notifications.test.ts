import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventPage, NotificationState } from '../../contract/readback.js';
import { secretBox } from '../../server/outbox/secret-box.js';
import { chatJob } from '../helpers/chat-jobs.js';
import { selectRows } from '../helpers/database.js';
import { FakeService } from '../helpers/fake-service.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/test-database.js';

/** E7 chat notifications through the durable outbox, against a fake Discord on 127.0.0.1. */

const WEBHOOK_ID = '112233445566778899';
const TOKEN = 'tok3n_SECRET-value_abcdefghijklmnopqrstuvwxyz0123456789';
const WEBHOOK_URL = `https://discord.com/api/webhooks/${WEBHOOK_ID}/${TOKEN}`;

let discord: FakeService;
let server: TestServer;
let me: TestAccount;

async function start(env: Record<string, string> = {}, database?: TestDatabase) {
  server = await startTestServer(
    {
      DISCORD_API_ORIGIN: env.DISCORD_API_ORIGIN ?? discord.origin,
      OUTBOX_RETRY_BASE_MS: '50',
      OUTBOUND_TIMEOUT_MS: '500',
      ...env,
    },
    database,
  );
  await server.app.ready();
}

async function notify(extra: Record<string, unknown> = {}, url = WEBHOOK_URL) {
  const res = await server.call('POST', '/stats/ingest-events', {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      eventType: 'deploy',
      description: 'Deployed to production',
      color: 0x00ff00,
      chatWebhook: { url, title: 'Release v1.2.3', ...extra },
    },
  });
  expect(res.statusCode).toBe(200);
  return res.json().id as string;
}

async function notification(eventId: string): Promise<NotificationState | null> {
  const res = await server.call('GET', `/stats/get-events?projectId=${me.projectId}`, {
    key: me.apiKey,
  });
  return (res.json() as EventPage).events.find((e) => e.id === eventId)?.notification ?? null;
}

async function settled(eventId: string, timeoutMs = 5_000): Promise<NotificationState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await notification(eventId);
    if (state && state.status !== 'pending') return state;
    if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeEach(async () => {
  discord = new FakeService().fallback({ status: 200, body: { id: '1' } });
  await discord.start();
});
afterEach(async () => {
  await server?.close();
  await discord.stop();
});

describe('delivery', () => {
  beforeEach(async () => {
    await start();
    me = await server.account();
  });

  it("puts one embed on the webhook at once, not at the worker's next idle poll", async () => {
    const eventId = await notify();
    // The worker looks by itself only every 60 s; the commit wakes it.
    const [request] = await discord.waitFor(1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(`/api/webhooks/${WEBHOOK_ID}/${TOKEN}`);
    expect(Object.fromEntries(request?.query ?? [])).toEqual({ wait: 'true' });
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body).toEqual({
      embeds: [
        {
          title: 'Release v1.2.3',
          description: 'Deployed to production',
          color: 0x00ff00,
          timestamp: expect.stringMatching(/Z$/),
          fields: [
            { name: 'Project', value: 'test project', inline: true },
            { name: 'Event', value: 'deploy', inline: true },
          ],
          footer: { text: `ci-stats · ${me.projectId}` },
        },
      ],
      allowed_mentions: { parse: [] },
    });
    expect(await settled(eventId)).toEqual({ status: 'delivered', attempts: 1, lastError: null });
  });

  it('uses the chatWebhook description and colour over the event’s, and keeps the thread', async () => {
    await notify(
      { description: 'From the webhook', color: 0xff0000 },
      `https://canary.discord.com/api/v10/webhooks/${WEBHOOK_ID}/${TOKEN}?thread_id=42&wait=false`,
    );
    const [request] = await discord.waitFor(1);
    expect(request?.path).toBe(`/api/v10/webhooks/${WEBHOOK_ID}/${TOKEN}`);
    expect(Object.fromEntries(request?.query ?? [])).toEqual({ wait: 'true', thread_id: '42' });
    expect(request?.body).toMatchObject({
      embeds: [{ description: 'From the webhook', color: 0xff0000 }],
    });
  });

  it('discordapp.com URLs go to the same origin', async () => {
    await notify({}, `https://discordapp.com/api/webhooks/${WEBHOOK_ID}/${TOKEN}`);
    expect((await discord.waitFor(1))[0]?.path).toBe(`/api/webhooks/${WEBHOOK_ID}/${TOKEN}`);
  });

  it('429: waits for retry_after, then delivers once', async () => {
    discord.queue({
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: 0.3, global: false },
    });
    const eventId = await notify();
    const [first, second] = await discord.waitFor(2);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(290);
    expect(await settled(eventId)).toMatchObject({ status: 'delivered', attempts: 2 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(discord.requests).toHaveLength(2);
  });

  it('429: honours the Retry-After header', async () => {
    discord.queue({ status: 429, headers: { 'retry-after': '1' }, body: {} });
    const eventId = await notify();
    const [first, second] = await discord.waitFor(2, () => true, 3_000);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(990);
    expect((await settled(eventId)).status).toBe('delivered');
  });

  it('5xx: backs off exponentially, then delivers', async () => {
    discord.queue({ status: 500 }, { status: 502 }, { status: 503 });
    const eventId = await notify();
    const requests = await discord.waitFor(4);
    const gaps = requests.slice(1).map((r, i) => r.at - (requests[i]?.at ?? 0));
    // base 50 ms: waits of at least 25, 50 and 100 ms (50-100% jitter of 50, 100, 200).
    expect(gaps[0]).toBeGreaterThanOrEqual(24);
    expect(gaps[1]).toBeGreaterThanOrEqual(49);
    expect(gaps[2]).toBeGreaterThanOrEqual(99);
    expect(await settled(eventId)).toMatchObject({ status: 'delivered', attempts: 4 });
  });

  it('404 unknown webhook fails for good at once, without the token in lastError', async () => {
    discord.queue({ status: 404, body: { message: 'Unknown Webhook', code: 10015 } });
    const eventId = await notify();
    const state = await settled(eventId);
    expect(state).toEqual({
      status: 'failed',
      attempts: 1,
      lastError: 'Discord answered HTTP 404: Unknown Webhook',
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(discord.requests).toHaveLength(1);
  });

  it('refuses to follow a redirect', async () => {
    const elsewhere = new FakeService();
    await elsewhere.start();
    try {
      discord.queue({ status: 307, headers: { location: `${elsewhere.origin}/steal` } });
      const eventId = await notify();
      const state = await settled(eventId);
      expect(state.status).toBe('failed');
      expect(state.lastError).toContain('redirect refused');
      expect(elsewhere.requests).toHaveLength(0);
      expect(discord.requests).toHaveLength(1);
    } finally {
      await elsewhere.stop();
    }
  });

  it('a hanging webhook times out and is retried', async () => {
    discord.queue({ hang: true });
    const eventId = await notify();
    const state = await settled(eventId, 5_000);
    expect(state).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(discord.requests).toHaveLength(2);
  });

  it('gives up after OUTBOX_MAX_ATTEMPTS and erases the token from the database', async () => {
    await server.close();
    await start({ OUTBOX_MAX_ATTEMPTS: '3' });
    me = await server.account();
    discord.fallback({ status: 500, body: { message: 'boom' } });
    const eventId = await notify();
    expect(await settled(eventId)).toEqual({
      status: 'failed',
      attempts: 3,
      lastError: 'Discord answered HTTP 500: boom',
    });
    const rows = await selectRows(server.database, 'SELECT * FROM outbox');
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
  });
});

describe('durability', () => {
  it('a job pending when the server stops is delivered once after the next start', async () => {
    const database = await createTestDatabase();
    const { origin, port } = discord;
    await discord.stop();
    await start({ DISCORD_API_ORIGIN: origin }, database);
    me = await server.account();
    const eventId = await notify();
    // Discord is down: the job waits.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await notification(eventId))?.status).toBe('pending');
    await server.app.close();

    discord = new FakeService().fallback({ status: 200, body: {} });
    await discord.start(port);
    await start({}, database);
    expect(await settled(eventId)).toMatchObject({ status: 'delivered' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(discord.requests).toHaveLength(1);
  });

  it('many events during an outage: each delivered exactly once after it', async () => {
    await start();
    me = await server.account();
    discord.fallback({ status: 503 });
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push(await notify({ title: `n${i}` }));
    await discord.waitFor(10);
    discord.fallback({ status: 200, body: {} });
    for (const id of ids) expect((await settled(id)).status).toBe('delivered');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const successes = discord.requests
      .filter((r) => r.replied === 200)
      .map((r) => (r.body as { embeds: { title: string }[] }).embeds[0]?.title)
      .sort();
    expect(successes).toEqual(Array.from({ length: 10 }, (_, i) => `n${i}`).sort());
  });
});

describe('webhook tokens sealed with SECRETS_KEY', () => {
  const KEY = 'k'.repeat(16) + '0123456789abcdef0123456789abcdef';

  it('the job holds only ciphertext while it waits; the message still reaches the webhook', async () => {
    // The first attempt is refused for now (500): the job waits, as stored, for its retry.
    discord.queue({ status: 500 });
    // The retry a second later: the payload is read while the job waits for it.
    await start({ SECRETS_KEY: KEY, OUTBOX_RETRY_BASE_MS: '1000' });
    me = await server.account();
    const eventId = await notify();
    await discord.waitFor(1);
    const [row] = await selectRows(server.database, 'SELECT payload FROM outbox');
    const payload = String(row?.payload);
    expect(payload).toContain(WEBHOOK_ID);
    expect(payload).not.toContain(TOKEN);
    expect(payload).toMatch(/"path":"sealed:v1:[\w-]+:[\w-]+"/);
    expect((await settled(eventId)).status).toBe('delivered');
    expect(discord.requests.map((r) => r.path)).toEqual([
      `/api/webhooks/${WEBHOOK_ID}/${TOKEN}`,
      `/api/webhooks/${WEBHOOK_ID}/${TOKEN}`,
    ]);
  });

  it('a job sealed with another key, or with a key no longer set, fails for good, saying so', async () => {
    for (const [env, error] of [
      [{ SECRETS_KEY: `${KEY}-other` }, 'sealed with another SECRETS_KEY or for another webhook'],
      // Without SECRETS_KEY, SQLite has a key of its own (secrets.key): another key.
      [
        {},
        onPostgres
          ? 'sealed with SECRETS_KEY, which is not set'
          : 'sealed with another SECRETS_KEY or for another webhook',
      ],
    ] as const) {
      await start(env);
      const path = `/api/webhooks/${WEBHOOK_ID}/${TOKEN}`;
      await server.app.storage.outbox.enqueue(
        chatJob(secretBox(KEY).seal(path, WEBHOOK_ID), WEBHOOK_ID, 'Sealed elsewhere'),
      );
      await expect
        .poll(async () =>
          selectRows(server.database, 'SELECT status, attempts, last_error FROM outbox'),
        )
        .toEqual([{ status: 'failed', attempts: 1, last_error: error }]);
      // The last one is closed after the test.
      if (Object.keys(env).length > 0) await server.close();
    }
    expect(discord.requests).toEqual([]);
  });
});
