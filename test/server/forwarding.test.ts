import { beforeEach, describe, expect, it } from 'vitest';
import { SpecError } from '../../contract/error-texts.js';
import { withoutIssues } from '../helpers/issues.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Spec part 3: every forwarding transition, read back through E1. */

let server: TestServer;
let me: TestAccount;

const status = async () =>
  (
    await server.call('GET', '/email-forwarding/email-forwarding-status', { key: me.apiKey })
  ).json();
const toggle = (body: unknown) =>
  server.call('POST', '/email-forwarding/email-forwarding-toggle', { key: me.apiKey, body });
const setName = (display_name: string) =>
  server.call('POST', '/account/update-display-name', { key: me.apiKey, body: { display_name } });

eachTestServer((started) => ({ server, me } = started));

describe('no profile', () => {
  it('E1 answers 200, disabled, empty email', async () => {
    const res = await server.call('GET', '/email-forwarding/email-forwarding-status', {
      key: me.apiKey,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ enabled: false, email: '' });
  });

  it('E2 fails with 404 and changes nothing', async () => {
    expect((await toggle({ enabled: true, email: 'me@example.com' })).statusCode).toBe(404);
    await setName('alice');
    expect(await status()).toEqual({ enabled: false, email: '' });
  });
});

describe('with a profile', () => {
  beforeEach(async () => {
    expect((await setName('alice')).statusCode).toBe(200);
  });

  it('disabled -> enabled stores and returns the address', async () => {
    const res = await toggle({ enabled: true, email: '  me@example.com ' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    expect(await status()).toEqual({ enabled: true, email: 'me@example.com' });
  });

  it('enabling again with another address replaces it', async () => {
    await toggle({ enabled: true, email: 'me@example.com' });
    await toggle({ enabled: true, email: 'new@example.org' });
    expect(await status()).toEqual({ enabled: true, email: 'new@example.org' });
  });

  it('enabled -> disabled keeps the stored address', async () => {
    await toggle({ enabled: true, email: 'me@example.com' });
    const res = await toggle({ enabled: false });
    expect(res.json()).toEqual({ success: true });
    expect(await status()).toEqual({ enabled: false, email: 'me@example.com' });
  });

  it('disabling while disabled succeeds and changes nothing', async () => {
    expect((await toggle({ enabled: false })).statusCode).toBe(200);
    expect(await status()).toEqual({ enabled: false, email: '' });
  });

  it('a failed enable leaves the state unchanged', async () => {
    await toggle({ enabled: true, email: 'me@example.com' });
    expect((await toggle({ enabled: true, email: 'broken' })).statusCode).toBe(400);
    expect(await status()).toEqual({ enabled: true, email: 'me@example.com' });
  });

  it.each([
    {},
    { enabled: 'true' },
    { enabled: 1 },
    { enabled: null },
    [],
    'x',
    { enabled: false, extra: 1 },
  ])('a body with no boolean `enabled` (%j) is 400 Invalid request body.', async (body) => {
    const res = await toggle(body);
    expect(res.statusCode).toBe(400);
    expect(withoutIssues(res.json())).toEqual({ error: SpecError.invalidBody });
    expect(await status()).toEqual({ enabled: false, email: '' });
  });

  it('renaming while enabled disables forwarding and clears the address', async () => {
    await toggle({ enabled: true, email: 'me@example.com' });
    expect((await setName('alice2')).statusCode).toBe(200);
    expect(await status()).toEqual({ enabled: false, email: '' });
  });

  it('setting the same name again keeps forwarding on', async () => {
    await toggle({ enabled: true, email: 'me@example.com' });
    expect((await setName('Alice')).statusCode).toBe(200);
    expect(await status()).toEqual({ enabled: true, email: 'me@example.com' });
  });
});
