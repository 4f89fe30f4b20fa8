import { beforeEach, describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { selectRows } from '../helpers/database.js';
import { withoutIssues } from '../helpers/issues.js';
import {
  ADMIN_TOKEN,
  eachTestServer,
  type TestAccount,
  type TestServer,
} from '../helpers/server.js';

/** Keys managed through the API, and what an ingest key may (not) do. */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started));

const createKey = (body: unknown, key = me.apiKey) =>
  server.call('POST', Paths.createApiKey, { key, body });
const listKeys = (key = me.apiKey) => server.call('GET', Paths.getApiKeys, { key });

describe('key management', () => {
  it('lists, creates (shown once) and revokes keys; never a key or its hash in a list', async () => {
    const created = await createKey({ label: ' deploy bot ', scope: 'ingest' });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const key = created.json();
    expect(key).toEqual({
      keyId: expect.any(String),
      apiKey: expect.stringMatching(/^cis_[A-Za-z0-9_-]{43}$/),
      label: 'deploy bot',
      scope: 'ingest',
      projectIds: null,
    });

    const listed = (await listKeys()).json().keys;
    expect(listed).toHaveLength(2);
    expect(listed[1]).toEqual({
      id: key.keyId,
      label: 'deploy bot',
      prefix: key.apiKey.slice(0, 10),
      scope: 'ingest',
      projectIds: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      last_used_at: null,
    });
    expect(listed[0]).toMatchObject({ scope: 'full', label: null });
    const text = JSON.stringify(listed);
    expect(text).not.toContain(key.apiKey);
    expect(text).not.toContain(me.apiKey);
    expect(
      JSON.stringify(await selectRows(server.database, 'SELECT * FROM api_keys')),
    ).not.toContain(key.apiKey);

    const revoked = await server.call('POST', Paths.revokeApiKey, {
      key: me.apiKey,
      body: { keyId: key.keyId },
    });
    expect({ status: revoked.statusCode, body: revoked.json() }).toEqual({
      status: 200,
      body: { success: true },
    });
    expect((await listKeys()).json().keys).toHaveLength(1);
    expect((await server.call('GET', Paths.getProjects, { key: key.apiKey })).statusCode).toBe(401);
  });

  it('an unknown key id, an already revoked one or another account’s is 404', async () => {
    const other = await server.account();
    const theirs = (await createKey({}, other.apiKey)).json().keyId;
    const mine = (await createKey({})).json().keyId;
    await server.call('POST', Paths.revokeApiKey, { key: me.apiKey, body: { keyId: mine } });
    for (const keyId of ['no-such-key', theirs, mine]) {
      const res = await server.call('POST', Paths.revokeApiKey, {
        key: me.apiKey,
        body: { keyId },
      });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 404,
        body: { error: OwnError.apiKeyNotFound },
      });
    }
    // Theirs still works.
    expect((await listKeys(other.apiKey)).json().keys).toHaveLength(2);
  });

  it('revoking the key used for the request is allowed', async () => {
    const second = (await createKey({})).json();
    const res = await server.call('POST', Paths.revokeApiKey, {
      key: second.apiKey,
      body: { keyId: second.keyId },
    });
    expect(res.statusCode).toBe(200);
    expect((await listKeys(second.apiKey)).statusCode).toBe(401);
  });

  it('projectIds only with ingest, each the caller’s, else 400 or 403', async () => {
    const other = await server.account();
    for (const body of [
      { scope: 'full', projectIds: [me.projectId] },
      { projectIds: [me.projectId] },
      { scope: 'ingest', projectIds: [] },
      { scope: 'admin' },
      { label: 'x'.repeat(101) },
      { unknown: true },
    ]) {
      const res = await createKey(body);
      expect({ status: res.statusCode, body: withoutIssues(res.json()) }).toEqual({
        status: 400,
        body: { error: SpecError.invalidBody },
      });
    }
    for (const projectIds of [[other.projectId], [me.projectId, 'no-such-project']]) {
      const res = await createKey({ scope: 'ingest', projectIds });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 403,
        body: { error: SpecError.forbiddenProject },
      });
    }
    expect((await listKeys()).json().keys).toHaveLength(1);
  });

  it('uses E6’s 401 text', async () => {
    for (const [method, url] of [
      ['GET', Paths.getApiKeys],
      ['POST', Paths.createApiKey],
      ['POST', Paths.revokeApiKey],
    ] as const) {
      const res = await server.call(method, url, {
        key: 'wrong',
        body: method === 'POST' ? {} : undefined,
      });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 401,
        body: { error: SpecError.unauthorizedStats },
      });
    }
  });

  it('last use is recorded within a minute, without a write per request', async () => {
    await server.call('GET', Paths.getProjects, { key: me.apiKey });
    // Nothing is written at the request itself.
    expect((await listKeys()).json().keys[0].last_used_at).toBeNull();
    await server.app.services.apiKeys.flushKeyUse();
    const used = (await listKeys()).json().keys[0].last_used_at;
    expect(Date.now() - Date.parse(used)).toBeLessThan(60_000);
  });
});

describe('an ingest key', () => {
  let ingest: string;
  let limited: string;
  let second: string;

  beforeEach(async () => {
    ingest = (await createKey({ scope: 'ingest' })).json().apiKey;
    second = (
      await server.call('POST', Paths.createProject, { key: me.apiKey, body: { name: 'second' } })
    ).json().id;
    limited = (await createKey({ scope: 'ingest', projectIds: [second] })).json().apiKey;
  });

  it('sends events and metrics, and lists its projects', async () => {
    for (const key of [ingest, limited]) {
      const event = await server.call('POST', Paths.ingestEvents, {
        key,
        body: { projectId: second, eventType: 'build' },
      });
      expect(event.statusCode).toBe(200);
      const metric = await server.call('POST', Paths.ingestMetrics, {
        key,
        body: { projectId: second, payload: { ms: 1 } },
      });
      expect(metric.statusCode).toBe(200);
    }
    const all = (await server.call('GET', Paths.getProjects, { key: ingest })).json().projects;
    expect(all.map((p: { id: string }) => p.id)).toEqual([me.projectId, second]);
    const some = (await server.call('GET', Paths.getProjects, { key: limited })).json().projects;
    expect(some.map((p: { id: string }) => p.id)).toEqual([second]);
  });

  it('limited to some projects, any other is 403 with the spec’s text', async () => {
    for (const [url, body] of [
      [Paths.ingestEvents, { projectId: me.projectId, eventType: 'x' }],
      [Paths.ingestMetrics, { projectId: me.projectId, payload: {} }],
    ] as const) {
      const res = await server.call('POST', url, { key: limited, body });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 403,
        body: { error: SpecError.forbiddenProject },
      });
    }
  });

  it('gets 403 “can only ingest” on every other endpoint, changing nothing', async () => {
    const endpoints: [string, string, unknown?][] = [
      ['GET', Paths.forwardingStatus],
      ['POST', Paths.forwardingToggle, { enabled: false }],
      ['POST', Paths.toggleSiteVisibility],
      ['POST', Paths.updateSiteConfiguration, { mood: 'x' }],
      ['GET', Paths.getSiteConfiguration],
      ['POST', Paths.updateDisplayName, { display_name: 'intruder' }],
      ['GET', Paths.getDisplayName],
      ['GET', Paths.getApiKeys],
      ['POST', Paths.createApiKey, {}],
      ['POST', Paths.revokeApiKey, { keyId: 'x' }],
      ['POST', Paths.createProject, { name: 'sneaky' }],
      ['GET', `${Paths.getEvents}?projectId=${second}`],
      ['GET', `${Paths.getMetrics}?projectId=${second}`],
    ];
    for (const key of [ingest, limited]) {
      for (const [method, url, body] of endpoints) {
        const res = await server.call(method as 'GET', url, { key, body });
        expect({ url, status: res.statusCode, body: res.json() }).toEqual({
          url,
          status: 403,
          body: { error: OwnError.ingestOnly },
        });
      }
    }
    const site = (await server.call('GET', Paths.getSiteConfiguration, { key: me.apiKey })).json();
    expect(site).toMatchObject({ mood: null, visibility: false });
    expect((await listKeys()).json().keys).toHaveLength(3);
  });

  it('the admin API and CLI create scoped keys too', async () => {
    const res = await server.call('POST', `/admin/accounts/${me.accountId}/keys`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { label: 'ci', scope: 'ingest', projectIds: [second] },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ keyId: expect.any(String), apiKey: expect.any(String) });
    const listed = (await listKeys()).json().keys.at(-1);
    expect(listed).toMatchObject({ label: 'ci', scope: 'ingest', projectIds: [second] });
  });
});
