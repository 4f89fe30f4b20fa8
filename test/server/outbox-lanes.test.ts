import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeService, type RecordedRequest } from '../helpers/fake-service.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Issue 14, defect 9: deliveries to different webhooks do not wait on each other, and a webhook's
 * own limits (`X-RateLimit-Remaining`, `X-RateLimit-Reset-After`) are honoured before a 429.
 */

const hook = (id: string) => `https://discord.com/api/webhooks/${id}/token-${id}`;
const to = (id: string) => (request: RecordedRequest) => request.path.includes(`/${id}/`);

let discord: FakeService;
let server: TestServer;
let me: TestAccount;

beforeEach(async () => {
  discord = new FakeService();
  await discord.start();
  server = await startTestServer({
    DISCORD_API_ORIGIN: discord.origin,
    // A hanging webhook would hold its delivery this long: far longer than the test waits.
    OUTBOUND_TIMEOUT_MS: '60000',
  });
  me = await server.account();
});
afterEach(async () => {
  // The fake first, so that hanging deliveries end and the server can close.
  await discord.stop();
  await server.close();
});

async function notify(id: string, title = 't') {
  const res = await server.call('POST', '/stats/ingest-events', {
    key: me.apiKey,
    body: { projectId: me.projectId, eventType: 'x', chatWebhook: { url: hook(id), title } },
  });
  expect(res.statusCode).toBe(200);
}

it('a webhook that never answers holds up only its own messages', async () => {
  discord.script((request) => (to('111')(request) ? { hang: true } : { status: 204 }));
  for (let i = 0; i < 6; i++) await notify('111');
  await discord.waitFor(1, to('111'));
  await notify('222');
  await discord.waitFor(1, to('222'), 5_000);
  // The stuck webhook's messages go one at a time: the others wait in its lane.
  expect(discord.requests.filter(to('111'))).toHaveLength(1);
});

it("a webhook's exhausted rate limit is waited out before its next message, not after a 429", async () => {
  discord.script((request) =>
    to('333')(request)
      ? {
          status: 200,
          body: { id: '1' },
          headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '1.5' },
        }
      : { status: 204 },
  );
  await notify('333', 'first');
  await notify('333', 'second');
  const [first] = await discord.waitFor(1, to('333'));
  // Meanwhile, another webhook is not held up by that wait.
  await notify('444');
  const [other] = await discord.waitFor(1, to('444'));
  const [, second] = await discord.waitFor(2, to('333'), 5_000);
  expect(other?.at).toBeLessThan(second?.at as number);
  expect((second?.at as number) - (first?.at as number)).toBeGreaterThanOrEqual(1_450);
  expect(discord.requests.every((request) => request.replied !== 429)).toBe(true);
});
