import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeService } from '../helpers/fake-service.js';
import { startServerProcess } from '../helpers/process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The built server at LOG_LEVEL=trace, through deliveries that succeed, retry and fail: its whole
 * output never shows the API key, a webhook token or a provider key.
 */

const API_KEY = 'bootstrap-key-that-must-never-be-logged-0123456789';
const TOKEN = 'webhook_token_that_must_never_be_logged_abcdefghijklmnopqrstuvwxyz';
const IMPROVMX_KEY = 'improvmx-key-never-logged-0123';
const BREVO_KEY = 'brevo-key-never-logged-0123';

let database: TestDatabase;
let fakes: FakeService[];
beforeEach(async () => {
  database = await createTestDatabase();
  fakes = [];
});
afterEach(async () => {
  for (const fake of fakes) await fake.stop();
  await database.drop();
});

it('no secret reaches stdout or stderr', async () => {
  const discord = new FakeService().queue(
    { status: 500, body: { message: `bad token ${TOKEN}` } },
    { status: 404 },
  );
  const improvmx = new FakeService().queue({
    status: 401,
    body: { error: `key ${IMPROVMX_KEY} refused` },
  });
  const brevo = new FakeService().queue({
    status: 400,
    body: { message: `api-key ${BREVO_KEY} invalid` },
  });
  fakes.push(discord, improvmx, brevo);
  for (const fake of fakes) await fake.start();

  const server = await startServerProcess({
    ...database.env,
    LOG_LEVEL: 'trace',
    BOOTSTRAP_API_KEY: API_KEY,
    DISCORD_API_ORIGIN: discord.origin,
    FORWARDING_PROVIDER: 'improvmx',
    IMPROVMX_API_KEY: IMPROVMX_KEY,
    IMPROVMX_API_URL: improvmx.origin,
    CONTACTS_PROVIDER: 'brevo',
    BREVO_API_KEY: BREVO_KEY,
    BREVO_API_URL: brevo.origin,
    OUTBOX_RETRY_BASE_MS: '20',
  });
  const call = async (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { 'x-api-key': API_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  const projectId = (
    (await (await call('GET', '/stats/get-projects')).json()) as { projects: { id: string }[] }
  ).projects[0]?.id;
  const webhook = `https://discord.com/api/webhooks/123456789012345678/${TOKEN}`;
  expect(
    (
      await call('POST', '/stats/ingest-events', {
        projectId,
        eventType: 'x',
        chatWebhook: { url: webhook, title: 't' },
      })
    ).status,
  ).toBe(200);
  await discord.waitFor(2);

  await call('POST', '/account/update-display-name', { display_name: 'someone' });
  expect(
    (
      await call('POST', '/email-forwarding/email-forwarding-toggle', {
        enabled: true,
        email: 'a@example.com',
      })
    ).status,
  ).toBe(500);
  expect(
    (
      await call('POST', '/email-forwarding/email-forwarding-toggle', {
        enabled: true,
        email: 'a@example.com',
      })
    ).status,
  ).toBe(200);
  await brevo.waitFor(1);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await server.stop()).toBe(0);

  const output = server.output();
  expect(output).toContain('outbox job given up');
  expect(output).toContain('forwarding provider call failed');
  for (const secret of [
    API_KEY,
    TOKEN,
    IMPROVMX_KEY,
    BREVO_KEY,
    Buffer.from(`api:${IMPROVMX_KEY}`).toString('base64'),
  ]) {
    expect(output).not.toContain(secret);
  }
});
