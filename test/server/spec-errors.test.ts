import { describe, expect, it } from 'vitest';
import { SpecError } from '../../contract/error-texts.js';
import { FakeService } from '../helpers/fake-service.js';
import { withoutIssues } from '../helpers/issues.js';
import { failReads, failWrites } from '../helpers/sabotage.js';
import {
  eachTestServer,
  startTestServer,
  type TestAccount,
  type TestServer,
} from '../helpers/server.js';
import type { TestDatabase } from '../helpers/test-database.js';

/** Every row of the spec's part 7 table, with its status and verbatim text. */

const WEBHOOK = 'https://discord.com/api/webhooks/123456789012345678/abcDEF_ghi-jkl';

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started));

async function expectError(
  response: Promise<{ statusCode: number; json(): unknown; headers: Record<string, unknown> }>,
  status: number,
  error: string,
) {
  const res = await response;
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect({ status: res.statusCode, body: withoutIssues(res.json()) }).toEqual({
    status,
    body: { error },
  });
}

describe('400', () => {
  it('E2: enabling without a valid email', async () => {
    await server.call('POST', '/account/update-display-name', {
      key: me.apiKey,
      body: { display_name: 'alice' },
    });
    for (const body of [
      { enabled: true },
      { enabled: true, email: '' },
      { enabled: true, email: 'not-an-address' },
      { enabled: true, email: 42 },
      { enabled: true, email: `${'a'.repeat(250)}@example.com` },
    ]) {
      await expectError(
        server.call('POST', '/email-forwarding/email-forwarding-toggle', { key: me.apiKey, body }),
        400,
        SpecError.emailRequired,
      );
    }
  });

  it('E7: required fields missing or the webhook URL invalid', async () => {
    const valid = { projectId: me.projectId, eventType: 'build' };
    for (const body of [
      {},
      { projectId: me.projectId },
      { eventType: 'build' },
      { ...valid, chatWebhook: { url: 'https://example.com/api/webhooks/1/abc', title: 't' } },
      { ...valid, chatWebhook: { url: WEBHOOK } },
    ]) {
      await expectError(
        server.call('POST', '/stats/ingest-events', { key: me.apiKey, body }),
        400,
        SpecError.invalidBody,
      );
    }
  });

  it('E8: projectId missing or invalid', async () => {
    for (const body of [
      { payload: { a: 1 } },
      { projectId: '', payload: {} },
      { projectId: 7, payload: {} },
    ]) {
      await expectError(
        server.call('POST', '/stats/ingest-metrics', { key: me.apiKey, body }),
        400,
        SpecError.projectIdRequired,
      );
    }
  });

  it('E8: payload missing or not an object', async () => {
    for (const body of [
      { projectId: me.projectId },
      { projectId: me.projectId, payload: [1, 2] },
      { projectId: me.projectId, payload: null },
      { projectId: me.projectId, payload: 'x' },
    ]) {
      await expectError(
        server.call('POST', '/stats/ingest-metrics', { key: me.apiKey, body }),
        400,
        SpecError.metricPayloadRequired,
      );
    }
  });
});

describe('401', () => {
  const endpoints: [string, string, string][] = [
    ['GET', '/email-forwarding/email-forwarding-status', SpecError.unauthorizedForwarding],
    ['POST', '/email-forwarding/email-forwarding-toggle', SpecError.unauthorizedForwarding],
    ['POST', '/pagesite/toggle-site-visibility', SpecError.unauthorizedSite],
    ['POST', '/pagesite/update-site-configuration', SpecError.unauthorizedSite],
    ['POST', '/account/update-display-name', SpecError.unauthorizedSite],
    ['GET', '/stats/get-projects', SpecError.unauthorizedStats],
    ['POST', '/stats/ingest-events', SpecError.unauthorizedStats],
    ['POST', '/stats/ingest-metrics', SpecError.unauthorizedStats],
  ];

  it.each(endpoints)(
    '%s %s without, with a wrong and with a revoked key',
    async (method, url, text) => {
      const body = method === 'POST' ? { projectId: me.projectId, payload: {} } : undefined;
      await expectError(server.call(method as 'GET', url, { body }), 401, text);
      await expectError(
        server.call(method as 'GET', url, { key: `${me.apiKey}x`, body }),
        401,
        text,
      );
      await expectError(server.call(method as 'GET', url, { key: '', body }), 401, text);

      const rotated = await server.call('POST', `/admin/accounts/${me.accountId}/keys`, {
        headers: { authorization: 'Bearer test-admin-token-0123456789' },
      });
      const { keyId, apiKey } = rotated.json() as { keyId: string; apiKey: string };
      expect((await server.call(method as 'GET', url, { key: apiKey, body })).statusCode).not.toBe(
        401,
      );
      await server.call('DELETE', `/admin/keys/${keyId}`, {
        headers: { authorization: 'Bearer test-admin-token-0123456789' },
      });
      await expectError(server.call(method as 'GET', url, { key: apiKey, body }), 401, text);
    },
  );

  it('is judged before the body: malformed JSON without a key is 401', async () => {
    await expectError(
      server.call('POST', '/stats/ingest-events', { body: '{not json' }),
      401,
      SpecError.unauthorizedStats,
    );
  });
});

describe('403', () => {
  it.each([
    ['/stats/ingest-events', { eventType: 'build' }],
    ['/stats/ingest-metrics', { payload: { ms: 1 } }],
  ])('%s: a project of another account, and an unknown project', async (url, rest) => {
    const other = await server.account();
    for (const projectId of [other.projectId, 'no-such-project']) {
      await expectError(
        server.call('POST', url, { key: me.apiKey, body: { projectId, ...rest } }),
        403,
        SpecError.forbiddenProject,
      );
    }
  });
});

describe('404 and 409', () => {
  it('E2 without a profile, whatever the body', async () => {
    for (const body of [
      { enabled: true, email: 'a@example.com' },
      { enabled: false },
      { enabled: 'x' },
      {},
    ]) {
      await expectError(
        server.call('POST', '/email-forwarding/email-forwarding-toggle', { key: me.apiKey, body }),
        404,
        SpecError.profileNotFound,
      );
    }
  });

  it('E5 with a name another account holds', async () => {
    const other = await server.account();
    await server.call('POST', '/account/update-display-name', {
      key: other.apiKey,
      body: { display_name: 'taken' },
    });
    await expectError(
      server.call('POST', '/account/update-display-name', {
        key: me.apiKey,
        body: { display_name: ' TAKEN ' },
      }),
      409,
      SpecError.displayNameTaken,
    );
  });
});

describe('500', () => {
  it('E2 when the forwarding provider fails', async () => {
    const improvmx = new FakeService().fallback({ status: 503 });
    await improvmx.start();
    const withProvider = await startTestServer({
      FORWARDING_PROVIDER: 'improvmx',
      IMPROVMX_API_KEY: 'key',
      IMPROVMX_API_URL: improvmx.origin,
    });
    try {
      const account = await withProvider.account();
      await withProvider.call('POST', '/account/update-display-name', {
        key: account.apiKey,
        body: { display_name: 'alice' },
      });
      await expectError(
        withProvider.call('POST', '/email-forwarding/email-forwarding-toggle', {
          key: account.apiKey,
          body: { enabled: true, email: 'alice@example.com' },
        }),
        500,
        SpecError.forwardingSyncFailed,
      );
      expect(improvmx.requests).toHaveLength(1);
    } finally {
      await withProvider.close();
      await improvmx.stop();
    }
  });

  const cases: [
    string,
    string,
    string,
    () => unknown,
    (database: TestDatabase) => Promise<void>,
    string,
  ][] = [
    [
      'E1',
      'GET',
      '/email-forwarding/email-forwarding-status',
      () => undefined,
      (d) => failReads(d, 'profiles'),
      SpecError.internal,
    ],
    [
      'E2',
      'POST',
      '/email-forwarding/email-forwarding-toggle',
      () => ({ enabled: false }),
      (d) => failReads(d, 'profiles'),
      SpecError.internal,
    ],
    [
      'E3',
      'POST',
      '/pagesite/toggle-site-visibility',
      () => undefined,
      (d) => failWrites(d, 'sites'),
      SpecError.visibilityFailed,
    ],
    [
      'E4',
      'POST',
      '/pagesite/update-site-configuration',
      () => ({ mood: ':)' }),
      (d) => failWrites(d, 'sites'),
      SpecError.siteConfigurationFailed,
    ],
    [
      'E6',
      'GET',
      '/stats/get-projects',
      () => undefined,
      (d) => failReads(d, 'projects'),
      SpecError.internal,
    ],
    [
      'E7',
      'POST',
      '/stats/ingest-events',
      () => ({ projectId: me.projectId, eventType: 'build' }),
      (d) => failWrites(d, 'events'),
      SpecError.internal,
    ],
    [
      'E8',
      'POST',
      '/stats/ingest-metrics',
      () => ({ projectId: me.projectId, payload: { a: 1 } }),
      (d) => failWrites(d, 'metrics'),
      SpecError.internal,
    ],
  ];

  it.each(cases)('%s when the database fails', async (_name, method, url, body, sabotage, text) => {
    await sabotage(server.database);
    const res = await server.call(method as 'GET', url, { key: me.apiKey, body: body() });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 500,
      body: { error: text },
    });
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    expect(res.body).not.toMatch(/disk full|no such table|at .*\.ts/);
  });
});
