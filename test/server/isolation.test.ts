import { afterEach, beforeEach, expect, it } from 'vitest';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Two accounts on one server: nothing one does is visible to, or changeable by, the other. */

let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;

beforeEach(async () => {
  server = await startTestServer();
  alice = await server.account();
  bob = await server.account();
});
afterEach(() => server.close());

const as = (who: TestAccount) => ({
  get: (url: string) => server.call('GET', url, { key: who.apiKey }),
  post: (url: string, body?: unknown) => server.call('POST', url, { key: who.apiKey, body }),
});

it('alice’s changes never show up for bob', async () => {
  const a = as(alice);
  const b = as(bob);
  await a.post('/account/update-display-name', { display_name: 'alice' });
  await a.post('/email-forwarding/email-forwarding-toggle', {
    enabled: true,
    email: 'alice@example.com',
  });
  await a.post('/pagesite/toggle-site-visibility');
  await a.post('/pagesite/update-site-configuration', {
    bio: 'alice bio',
    blocks: [{ type: 'text', content: 'a' }],
  });
  await a.post('/stats/ingest-events', { projectId: alice.projectId, eventType: 'build' });
  await a.post('/stats/ingest-metrics', { projectId: alice.projectId, payload: { a: 1 } });

  expect((await b.get('/email-forwarding/email-forwarding-status')).json()).toEqual({
    enabled: false,
    email: '',
  });
  expect(
    (await b.post('/email-forwarding/email-forwarding-toggle', { enabled: false })).statusCode,
  ).toBe(404);
  expect((await b.get('/account/get-display-name')).json()).toEqual({
    display_name: null,
    alias: null,
  });
  expect((await b.get('/pagesite/get-site-configuration')).json()).toMatchObject({
    bio: null,
    visibility: false,
    blocks: [],
  });
  expect((await b.post('/pagesite/toggle-site-visibility')).json()).toEqual({
    success: true,
    newStatus: true,
  });
  expect(
    (await b.get('/stats/get-projects')).json().projects.map((p: { id: string }) => p.id),
  ).toEqual([bob.projectId]);
  expect((await b.get(`/stats/get-events?projectId=${bob.projectId}`)).json().events).toEqual([]);
  expect((await b.get(`/stats/get-metrics?projectId=${bob.projectId}`)).json().metrics).toEqual([]);
});

it('bob cannot read or write alice’s project, and alice’s state is untouched by bob', async () => {
  const a = as(alice);
  const b = as(bob);
  await a.post('/pagesite/update-site-configuration', { bio: 'mine' });
  await b.post('/pagesite/update-site-configuration', { bio: 'his' });
  await b.post('/pagesite/toggle-site-visibility');

  for (const res of [
    await b.post('/stats/ingest-events', { projectId: alice.projectId, eventType: 'x' }),
    await b.post('/stats/ingest-metrics', { projectId: alice.projectId, payload: {} }),
    await b.get(`/stats/get-events?projectId=${alice.projectId}`),
    await b.get(`/stats/get-metrics?projectId=${alice.projectId}`),
  ]) {
    expect(res.statusCode).toBe(403);
  }
  expect((await a.get('/pagesite/get-site-configuration')).json()).toMatchObject({
    bio: 'mine',
    visibility: false,
  });
  expect((await a.get(`/stats/get-events?projectId=${alice.projectId}`)).json().events).toEqual([]);
});

it('display names are unique across accounts', async () => {
  expect(
    (await as(alice).post('/account/update-display-name', { display_name: 'same' })).statusCode,
  ).toBe(200);
  expect(
    (await as(bob).post('/account/update-display-name', { display_name: 'Same' })).statusCode,
  ).toBe(409);
  expect((await as(bob).get('/account/get-display-name')).json().display_name).toBeNull();
});
