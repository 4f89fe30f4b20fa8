import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SpecError } from '../../contract/error-texts.js';
import { selectColumn } from '../helpers/database.js';
import { FakeService } from '../helpers/fake-service.js';
import { failWrites } from '../helpers/sabotage.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** E2 and E5 against fake ImprovMX and Brevo servers on 127.0.0.1. */

const IMPROVMX_KEY = 'sk_improvmx_secret_0123456789';
const BREVO_KEY = 'xkeysib-brevo-secret-0123456789';
const BASIC = `Basic ${Buffer.from(`api:${IMPROVMX_KEY}`).toString('base64')}`;

let improvmx: FakeService;
let brevo: FakeService;
let server: TestServer;
let me: TestAccount;

const toggle = (body: unknown) =>
  server.call('POST', '/email-forwarding/email-forwarding-toggle', { key: me.apiKey, body });
const status = async () =>
  (
    await server.call('GET', '/email-forwarding/email-forwarding-status', { key: me.apiKey })
  ).json();
const setName = (display_name: string) =>
  server.call('POST', '/account/update-display-name', { key: me.apiKey, body: { display_name } });

beforeEach(async () => {
  improvmx = new FakeService();
  brevo = new FakeService().fallback({ status: 201, body: { id: 7 } });
  await improvmx.start();
  await brevo.start();
  server = await startTestServer({
    MAIL_DOMAIN: 'mail.example.test',
    FORWARDING_PROVIDER: 'improvmx',
    IMPROVMX_API_KEY: IMPROVMX_KEY,
    IMPROVMX_API_URL: `${improvmx.origin}/v3`,
    CONTACTS_PROVIDER: 'brevo',
    BREVO_API_KEY: BREVO_KEY,
    BREVO_API_URL: `${brevo.origin}/v3/`,
    BREVO_LIST_ID: '12',
    BREVO_ALIAS_ATTRIBUTE: 'ALIAS',
    OUTBOX_RETRY_BASE_MS: '50',
    OUTBOUND_TIMEOUT_MS: '500',
  });
  await server.app.ready();
  me = await server.account();
  expect((await setName('Alice')).statusCode).toBe(200);
});
afterEach(async () => {
  await server.close();
  await improvmx.stop();
  await brevo.stop();
});

describe('E2 enable', () => {
  it('creates the alias at ImprovMX with Basic auth, then queues the Brevo upsert', async () => {
    const res = await toggle({ enabled: true, email: 'alice@example.com' });
    expect(res.json()).toEqual({ success: true });
    expect(improvmx.requests).toHaveLength(1);
    const [create] = improvmx.requests;
    expect(create).toMatchObject({
      method: 'POST',
      path: '/v3/domains/mail.example.test/aliases',
      body: { alias: 'alice', forward: 'alice@example.com' },
    });
    expect(create?.headers.authorization).toBe(BASIC);
    expect(await status()).toEqual({ enabled: true, email: 'alice@example.com' });

    const [contact] = await brevo.waitFor(1);
    expect(contact).toMatchObject({
      method: 'POST',
      path: '/v3/contacts',
      body: {
        email: 'alice@example.com',
        attributes: { ALIAS: 'alice@mail.example.test' },
        listIds: [12],
        updateEnabled: true,
      },
    });
    expect(contact?.headers['api-key']).toBe(BREVO_KEY);
  });

  it('an existing alias (400 on create) is updated with PUT', async () => {
    improvmx.queue({ status: 400, body: { success: false, errors: { alias: ['exists'] } } });
    expect((await toggle({ enabled: true, email: 'new@example.com' })).statusCode).toBe(200);
    expect(improvmx.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v3/domains/mail.example.test/aliases',
      'PUT /v3/domains/mail.example.test/aliases/alice',
    ]);
    expect(improvmx.requests[1]?.body).toEqual({ forward: 'new@example.com' });
  });

  it.each([
    ['500', { status: 500, body: { success: false } }],
    ['401', { status: 401, body: { success: false, error: 'bad key' } }],
    ['429', { status: 429, headers: { 'retry-after': '30' } }],
    ['a hang', { hang: true as const }],
  ])('ImprovMX failing with %s: 500 and nothing changes', async (_name, reply) => {
    improvmx.queue(reply);
    const res = await toggle({ enabled: true, email: 'alice@example.com' });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 500,
      body: { error: SpecError.forwardingSyncFailed },
    });
    expect(await status()).toEqual({ enabled: false, email: '' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(brevo.requests).toHaveLength(0);
  });

  it('ImprovMX unreachable: 500 and nothing changes', async () => {
    await improvmx.stop();
    const res = await toggle({ enabled: true, email: 'alice@example.com' });
    expect(res.json()).toEqual({ error: SpecError.forwardingSyncFailed });
    expect(await status()).toEqual({ enabled: false, email: '' });
  });

  it('a Brevo outage never fails E2; the upsert is retried until it lands, once', async () => {
    brevo.queue({ status: 503 }, { status: 429, headers: { 'x-sib-ratelimit-reset': '0' } });
    brevo.fallback({ status: 204 });
    expect((await toggle({ enabled: true, email: 'alice@example.com' })).statusCode).toBe(200);
    await brevo.waitFor(3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(brevo.requests.map((r) => r.replied)).toEqual([503, 429, 204]);
  });
});

describe('E2 when our own record fails after ImprovMX changed', () => {
  it('puts ImprovMX back and answers 500', async () => {
    await failWrites(server.database, 'profiles');
    const res = await toggle({ enabled: true, email: 'alice@example.com' });
    expect(res.statusCode).toBe(500);
    // The alias was created, then removed again: provider and database agree.
    expect(improvmx.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v3/domains/mail.example.test/aliases',
      'DELETE /v3/domains/mail.example.test/aliases/alice',
    ]);
    expect(await status()).toEqual({ enabled: false, email: '' });
  });
});

describe('E2 disable', () => {
  beforeEach(async () => {
    expect((await toggle({ enabled: true, email: 'alice@example.com' })).statusCode).toBe(200);
    improvmx.requests.length = 0;
  });

  it('removes the alias at ImprovMX and keeps the address', async () => {
    expect((await toggle({ enabled: false })).statusCode).toBe(200);
    expect(improvmx.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'DELETE /v3/domains/mail.example.test/aliases/alice',
    ]);
    expect(await status()).toEqual({ enabled: false, email: 'alice@example.com' });
  });

  it('an alias already gone (404) counts as removed', async () => {
    improvmx.queue({ status: 404, body: { success: false } });
    expect((await toggle({ enabled: false })).statusCode).toBe(200);
    expect((await status()).enabled).toBe(false);
  });

  it('ImprovMX failing: 500 and forwarding stays on', async () => {
    improvmx.queue({ status: 502 });
    const res = await toggle({ enabled: false });
    expect(res.json()).toEqual({ error: SpecError.forwardingSyncFailed });
    expect(await status()).toEqual({ enabled: true, email: 'alice@example.com' });
  });
});

describe('E5 rename while forwarding is on', () => {
  it('removes the old alias through the outbox, surviving an ImprovMX outage', async () => {
    expect((await toggle({ enabled: true, email: 'alice@example.com' })).statusCode).toBe(200);
    improvmx.requests.length = 0;
    improvmx.queue({ status: 500 }, { hang: true });
    const res = await setName('alice-new');
    expect(res.statusCode).toBe(200);
    expect(await status()).toEqual({ enabled: false, email: '' });
    const deletes = await improvmx.waitFor(3, (r) => r.method === 'DELETE');
    expect(deletes.every((r) => r.path === '/v3/domains/mail.example.test/aliases/alice')).toBe(
      true,
    );
    expect(deletes.map((r) => r.replied)).toEqual([500, undefined, 200]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(improvmx.requests.filter((r) => r.replied === 200)).toHaveLength(1);
  });

  it('a queued removal leaves the alias alone once another account forwards it', async () => {
    expect((await toggle({ enabled: true, email: 'alice@example.com' })).statusCode).toBe(200);
    improvmx.requests.length = 0;
    // ImprovMX is down when Alice renames: the removal of "alice" waits in the outbox.
    improvmx.fallback({ status: 503 });
    expect((await setName('alice-new')).statusCode).toBe(200);
    await improvmx.waitFor(1, (r) => r.method === 'DELETE');

    // Bob takes the freed name and enables forwarding while the removal is still pending.
    const bob = await server.account();
    const asBob = (url: string, body: unknown) =>
      server.call('POST', url, { key: bob.apiKey, body });
    expect(
      (await asBob('/account/update-display-name', { display_name: 'alice' })).statusCode,
    ).toBe(200);
    // ImprovMX is back for Bob's alias, but still refuses the removal until Bob forwards: a retry
    // landing between the two would otherwise race Bob's toggle (a busy machine makes it likely).
    improvmx.script((r) =>
      r.method === 'POST' ? { status: 200, body: { success: true } } : undefined,
    );
    expect(
      (
        await asBob('/email-forwarding/email-forwarding-toggle', {
          enabled: true,
          email: 'bob@example.com',
        })
      ).statusCode,
    ).toBe(200);
    improvmx.fallback({ status: 200, body: { success: true } });

    // The removal job finishes without deleting Bob's alias.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = improvmx.requests.filter((r) => r.replied === 200);
    expect(after.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v3/domains/mail.example.test/aliases',
    ]);
    const jobs = await selectColumn(
      server.database,
      `SELECT status FROM outbox WHERE kind = 'forwarding-remove-alias'`,
    );
    expect(jobs).toEqual(['delivered']);
  });

  it('a rename without forwarding touches nothing at ImprovMX', async () => {
    expect((await setName('alice-other')).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(improvmx.requests).toHaveLength(0);
  });
});
