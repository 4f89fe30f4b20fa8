import { afterAll, beforeAll, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { type FakePlatform, fakeDiscord } from '../helpers/fake-platforms.js';
import type { ServerProcess } from '../helpers/process.js';
import { createAccount, send, startReplicas } from '../helpers/replicas.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Three server processes on one PostgreSQL database, events reaching them in turn: every
 * channel message is delivered exactly once, and the channel is paced for all three together
 * (its sending slots live in the database), so a Discord that enforces its 5 requests per 2 s
 * never answers 429.
 */

const DISCORD_ID = '223344556677889900';
const DISCORD_TOKEN = 'rEpLiCaToKeN_0123456789-abcdefghijklmnopqrstuvwxyz';

let database: TestDatabase;
let discord: FakePlatform;
let replicas: ServerProcess[];

beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
  discord = fakeDiscord({ [DISCORD_ID]: DISCORD_TOKEN });
  await discord.service.start();
  replicas = await startReplicas(database, 3, {
    DISCORD_API_ORIGIN: discord.service.origin,
    SECRETS_KEY: 'replicas-channel-key-0123456789abcdefghijkl',
    OUTBOX_RETRY_BASE_MS: '50',
    OUTBOUND_TIMEOUT_MS: '2000',
  });
});

afterAll(async () => {
  const codes = await Promise.all((replicas ?? []).map((replica) => replica.stop()));
  await discord?.service.stop();
  await database?.drop();
  expect(codes).toEqual(codes.map(() => 0));
});

it('builds through three replicas: each message delivered once, paced together, never a 429', async () => {
  const urls = replicas.map((replica) => replica.url);
  const me = await createAccount(urls[0] as string);
  const created = await send(urls[0] as string, 'POST', Paths.createChannel, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      kind: 'discord',
      name: 'builds',
      url: `https://discord.com/api/webhooks/${DISCORD_ID}/${DISCORD_TOKEN}`,
      rules: { notify: ['builds'] },
    },
  });
  expect(created.status).toBe(201);
  const count = 18;
  await Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const res = await send(urls[n % urls.length] as string, 'POST', Paths.ingestEvents, {
        key: me.apiKey,
        body: {
          projectId: me.projectId,
          eventType: 'build',
          payload: { status: 'success', ci: { branch: 'main', build_number: String(n) } },
        },
      });
      expect(res.status).toBe(200);
    }),
  );
  await discord.service.waitFor(count, (r) => r.replied === 200, 30_000);
  // Time for a second delivery of any of them, were a message ever sent twice.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(discord.limited()).toBe(0);
  const numbers = discord.accepted().map((r) => /#(\d+)/.exec(JSON.stringify(r.body))?.[1]);
  expect(numbers.map(Number).sort((a, b) => a - b)).toEqual(
    Array.from({ length: count }, (_, n) => n),
  );
}, 60_000);
