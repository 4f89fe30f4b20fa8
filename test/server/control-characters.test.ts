import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { NUL_PROBLEM, nulText } from '../../contract/text-rule.js';
import { BACKGROUND_ROWS, type DatabaseReader, openReader } from '../helpers/database.js';
import { FormClient } from '../helpers/form-client.js';
import {
  ADMIN_TOKEN,
  startTestServer,
  type TestAccount,
  type TestServer,
} from '../helpers/server.js';
import { createTestDatabase, onPostgres } from '../helpers/test-database.js';

/**
 * Issue 22, part 3: a NUL character was a 500 on PostgreSQL (which cannot store it) and stored on
 * SQLite. The rule (contract/text-rule.ts): every text the API, the pages and the admin routes
 * accept, and every string and key inside a JSON payload, refuses NUL with 400 naming the field;
 * every other character, control characters included, is stored and given back as sent.
 *
 * Every field and parameter below gets each control character in turn. In the postgres project
 * the same requests go, in the same order, to a SQLite twin too, and both answers must be the same
 * (ids, times and tokens masked). Never a 5xx; a NUL is a 400 naming the field and changes nothing.
 */

const VALUES = [
  'a\u0000b',
  '\u0000',
  'x\u0001y',
  '\u001b[31mred',
  'del\u007f',
  'c1\u0085\u009f',
  'tab\tnl\ncr\r',
  '\u2028\u2029\ufeff',
];

interface Side {
  server: TestServer;
  me: TestAccount;
  browser: FormClient;
  shareToken: string;
  reader: DatabaseReader;
}

async function prepare(server: TestServer): Promise<Side> {
  const me = await server.account();
  const key = me.apiKey;
  await server.call('POST', Paths.updateDisplayName, { key, body: { display_name: 'alice' } });
  await server.call('POST', Paths.toggleSiteVisibility, { key });
  await server.call('POST', Paths.ingestEvents, {
    key,
    body: { projectId: me.projectId, eventType: 'build', payload: { status: 'success' } },
  });
  const share = await server.call('POST', Paths.createShareLink, {
    key,
    body: { projectId: me.projectId },
  });
  const browser = new FormClient(server);
  await browser.signIn(key);
  await browser.get('/dashboard');
  return {
    server,
    me,
    browser,
    shareToken: (share.json() as { token: string }).token,
    reader: openReader(server.database),
  };
}

/** One request: where the value goes, and the name the answer must give when it holds a NUL. */
interface Case {
  field: string;
  send(side: Side, value: string): Promise<LightMyRequestResponse>;
}

const api =
  (method: InjectOptions['method'], path: string, body: (side: Side, value: string) => unknown) =>
  (side: Side, value: string) =>
    side.server.call(method, path, { key: side.me.apiKey, body: body(side, value) });

const query =
  (path: string, params: (side: Side, value: string) => Record<string, string>) =>
  (side: Side, value: string) =>
    side.server.call('GET', `${path}?${new URLSearchParams(params(side, value))}`, {
      key: side.me.apiKey,
    });

const admin =
  (
    method: InjectOptions['method'],
    path: (side: Side, value: string) => string,
    body?: (value: string) => unknown,
  ) =>
  (side: Side, value: string) =>
    side.server.call(method, path(side, value), {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      ...(body === undefined ? {} : { body: body(value) }),
    });

const page = (path: (side: Side, value: string) => string) => (side: Side, value: string) =>
  side.browser.get(path(side, value));

const form =
  (path: string | ((side: Side) => string), fields: (value: string) => Record<string, string>) =>
  (side: Side, value: string) =>
    side.browser.post(typeof path === 'string' ? path : path(side), fields(value));

const enc = encodeURIComponent;

const CASES: Case[] = [
  // The JSON API: bodies.
  {
    field: 'email',
    send: api('POST', Paths.forwardingToggle, (_, v) => ({
      enabled: true,
      email: `${v}@example.com`,
    })),
  },
  ...['bio', 'avatar_url', 'location', 'mood', 'theme_id'].map((field) => ({
    field,
    send: api('POST', Paths.updateSiteConfiguration, (_, v) => ({ [field]: v })),
  })),
  {
    field: 'blocks.0.content',
    send: api('POST', Paths.updateSiteConfiguration, (_, v) => ({
      blocks: [{ type: 'text', content: v }],
    })),
  },
  {
    field: 'blocks.0.id',
    send: api('POST', Paths.updateSiteConfiguration, (_, v) => ({
      blocks: [{ id: v, type: 'text', content: 'x' }],
    })),
  },
  {
    field: 'blocks.0.type',
    send: api('POST', Paths.updateSiteConfiguration, (_, v) => ({
      blocks: [{ type: v, content: 'x' }],
    })),
  },
  {
    field: 'display_name',
    send: api('POST', Paths.updateDisplayName, (_, v) => ({ display_name: `bob${v}` })),
  },
  { field: 'label', send: api('POST', Paths.createApiKey, (_, v) => ({ label: v })) },
  { field: 'scope', send: api('POST', Paths.createApiKey, (_, v) => ({ scope: v })) },
  {
    field: 'projectIds.0',
    send: api('POST', Paths.createApiKey, (_, v) => ({ scope: 'ingest', projectIds: [v] })),
  },
  { field: 'keyId', send: api('POST', Paths.revokeApiKey, (_, v) => ({ keyId: v })) },
  { field: 'name', send: api('POST', Paths.createProject, (_, v) => ({ name: `p ${v}` })) },
  {
    field: 'projectId',
    send: api('POST', Paths.ingestEvents, (_, v) => ({ projectId: v, eventType: 'build' })),
  },
  ...['eventType', 'description'].map((field) => ({
    field,
    send: api('POST', Paths.ingestEvents, (s, v) => ({
      projectId: s.me.projectId,
      eventType: 'build',
      [field]: v,
    })),
  })),
  {
    field: 'payload.note',
    send: api('POST', Paths.ingestEvents, (s, v) => ({
      projectId: s.me.projectId,
      eventType: 'build',
      payload: { note: v },
    })),
  },
  {
    field: 'payload.deep.0.x',
    send: api('POST', Paths.ingestEvents, (s, v) => ({
      projectId: s.me.projectId,
      eventType: 'build',
      payload: { deep: [{ x: v }] },
    })),
  },
  {
    field: 'payload',
    send: api('POST', Paths.ingestEvents, (s, v) => ({
      projectId: s.me.projectId,
      eventType: 'build',
      payload: { [`k${v}`]: 1 },
    })),
  },
  ...['url', 'title', 'description'].map((field) => ({
    field: `chatWebhook.${field}`,
    send: api('POST', Paths.ingestEvents, (s, v) => ({
      projectId: s.me.projectId,
      eventType: 'build',
      chatWebhook: {
        url: 'https://discord.com/api/webhooks/1/abc',
        title: 't',
        [field]: field === 'url' ? `https://discord.com/api/webhooks/1/a${v}` : v,
      },
    })),
  })),
  {
    field: 'projectId',
    send: api('POST', Paths.ingestMetrics, (_, v) => ({ projectId: v, payload: { a: 1 } })),
  },
  {
    field: 'payload.note',
    send: api('POST', Paths.ingestMetrics, (s, v) => ({
      projectId: s.me.projectId,
      payload: { a: 1, note: v },
    })),
  },
  {
    field: 'payload',
    send: api('POST', Paths.ingestMetrics, (s, v) => ({
      projectId: s.me.projectId,
      payload: { [`size${v}`]: 2 },
    })),
  },
  { field: 'projectId', send: api('POST', Paths.createShareLink, (_, v) => ({ projectId: v })) },
  {
    field: 'token',
    send: api('POST', Paths.revokeShareLink, (_, v) => ({ token: `cis_share_${v}` })),
  },
  // The JSON API: query parameters.
  ...['projectId', 'eventType', 'status', 'branch', 'cursor', 'from', 'limit'].map((field) => ({
    field,
    send: query(Paths.getEvents, (s, v) => ({ projectId: s.me.projectId, [field]: v })),
  })),
  ...['projectId', 'branch'].map((field) => ({
    field,
    send: query(Paths.getMetrics, (s, v) => ({ projectId: s.me.projectId, [field]: v })),
  })),
  { field: 'projectId', send: query(Paths.getMetricKeys, (_, v) => ({ projectId: v })) },
  ...['projectId', 'key', 'branch', 'to', 'buckets'].map((field) => ({
    field,
    send: query(Paths.getMetricSeries, (s, v) => ({
      projectId: s.me.projectId,
      key: 'a',
      [field]: v,
    })),
  })),
  ...['projectId', 'eventType', 'branch'].map((field) => ({
    field,
    send: query(Paths.getBuildSummary, (s, v) => ({ projectId: s.me.projectId, [field]: v })),
  })),
  { field: 'unknown', send: query(Paths.getProjects, (_, v) => ({ unknown: v })) },
  // The admin API.
  {
    field: 'label',
    send: admin(
      'POST',
      () => '/admin/accounts',
      (v) => ({ label: v }),
    ),
  },
  {
    field: 'accountId',
    send: admin(
      'POST',
      (_, v) => `/admin/accounts/${enc(v)}/keys`,
      () => ({}),
    ),
  },
  {
    field: 'label',
    send: admin(
      'POST',
      (s) => `/admin/accounts/${s.me.accountId}/keys`,
      (v) => ({ label: v }),
    ),
  },
  {
    field: 'projectIds.0',
    send: admin(
      'POST',
      (s) => `/admin/accounts/${s.me.accountId}/keys`,
      (v) => ({ scope: 'ingest', projectIds: [v] }),
    ),
  },
  { field: 'keyId', send: admin('DELETE', (_, v) => `/admin/keys/${enc(v)}`) },
  {
    field: 'name',
    send: admin(
      'POST',
      (s) => `/admin/accounts/${s.me.accountId}/projects`,
      (v) => ({ name: `p ${v}` }),
    ),
  },
  { field: 'accountId', send: admin('GET', (_, v) => `/admin/accounts/${enc(v)}/projects`) },
  // The public page and the share page: addresses.
  { field: 'name', send: page((_, v) => `/@${enc(v)}`) },
  { field: 'x', send: page((_, v) => `/@alice?x=${enc(v)}`) },
  { field: 'token', send: page((_, v) => `/share/${enc(v)}`) },
  ...['branch', 'range', 'before', 'from'].map((field) => ({
    field,
    send: page(
      (s, v) =>
        `/share/${s.shareToken}?range=custom&from=2026-01-01&to=2026-01-02&${field}=${enc(v)}`,
    ),
  })),
  ...['branch', 'eventType'].map((field) => ({
    field,
    send: page((s, v) => `/share/${s.shareToken}/badge/status.svg?${field}=${enc(v)}`),
  })),
  { field: 'key', send: page((s, v) => `/share/${s.shareToken}/badge/metric/${enc(v)}.svg`) },
  // The dashboard: addresses and forms.
  { field: 'done', send: page((_, v) => `/dashboard?done=${enc(v)}`) },
  { field: 'id', send: page((_, v) => `/dashboard/projects/${enc(v)}`) },
  {
    field: 'branch',
    send: page((s, v) => `/dashboard/projects/${s.me.projectId}?branch=${enc(v)}`),
  },
  ...[
    'bio',
    'avatar_url',
    'location',
    'mood',
    'theme_id',
    'newBlock[content]',
    'newBlock[type]',
    'action',
  ].map((field) => ({ field, send: form('/dashboard/site', (v) => ({ [field]: v })) })),
  { field: 'extra', send: form('/dashboard/site/visibility', (v) => ({ extra: v })) },
  {
    field: 'display_name',
    send: form('/dashboard/account/name', (v) => ({ display_name: `bob${v}` })),
  },
  {
    field: 'email',
    send: form('/dashboard/account/forwarding', (v) => ({
      enabled: 'true',
      email: `${v}@example.com`,
    })),
  },
  ...['label', 'scope', 'projectIds[0]'].map((field) => ({
    field,
    send: form('/dashboard/keys', (v) => ({ scope: 'ingest', [field]: v })),
  })),
  { field: 'keyId', send: form('/dashboard/keys/revoke', (v) => ({ keyId: v })) },
  { field: 'name', send: form('/dashboard/projects', (v) => ({ name: `p ${v}` })) },
  {
    field: 'id',
    send: form(
      (s) => `/dashboard/projects/${s.me.projectId}/share-links/revoke`,
      (v) => ({ id: v }),
    ),
  },
  { field: 'api_key', send: (side, v) => new FormClient(side.server).signIn(`cis_${v}`) },
  // Reading back what was stored: every answer the same on both backends.
  { field: '', send: query(Paths.getEvents, (s) => ({ projectId: s.me.projectId, limit: '200' })) },
  { field: '', send: query(Paths.getMetrics, (s) => ({ projectId: s.me.projectId })) },
  { field: '', send: query(Paths.getMetricKeys, (s) => ({ projectId: s.me.projectId })) },
  { field: '', send: api('GET', Paths.getSiteConfiguration, () => undefined) },
  { field: '', send: api('GET', Paths.getProjects, () => undefined) },
  { field: '', send: api('GET', Paths.getApiKeys, () => undefined) },
];

/** Fields whose values differ between two servers by nature (ids, times, tokens, timing). */
const VARYING = new Set([
  'id',
  'prefix',
  'created_at',
  'last_used_at',
  'last_at',
  'nextCursor',
  'notification',
]);

/** An answer with what differs between two servers by nature masked: ids, times, tokens. */
function comparable(res: LightMyRequestResponse, side: Side): unknown {
  const mask = (text: string) =>
    text
      .replaceAll(side.me.projectId, '<project>')
      .replaceAll(side.me.accountId, '<account>')
      .replaceAll(side.shareToken, '<share>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/cis_[A-Za-z0-9_-]+/g, '<key>')
      .replace(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/g, '<time>')
      .replace(/<span class="notification[^<]*<\/span>/g, '<notification>')
      .replace(/name="_csrf" value="[^"]*"/g, '<csrf>')
      // A page's cursor names its last record's time (and seq): a time, masked like the others.
      .replace(/before=[A-Za-z0-9_-]+/g, 'before=<cursor>')
      // Storage use: each backend's own bytes for the same rows (docs/operations.md), and
      // measured in the background, so shown once one side's measurement is done.
      .replace(
        /<span class="stored">[^<]*<\/span>|<span class="muted">being measured<\/span>/g,
        '<stored>',
      );
  const type = String(res.headers['content-type'] ?? '');
  let body: unknown = type.startsWith('image/svg') ? '<svg>' : mask(res.body);
  if (type.startsWith('application/json')) {
    body = JSON.parse(res.body, (key, value) => (VARYING.has(key) ? '<varies>' : value));
    body = JSON.parse(mask(JSON.stringify(body)));
  }
  return { status: res.statusCode, location: res.headers.location, type, body };
}

/** Where two texts first differ, with some context. */
function difference(a: string, b: string): string {
  let at = 0;
  while (at < a.length && a[at] === b[at]) at++;
  const from = Math.max(0, at - 120);
  return `\n  ${a.slice(from, at + 120)}\n  ${b.slice(from, at + 120)}`;
}

/** Fields of a fixed form (an enum, a number, a date): their 400 says that form. */
const FIXED_FORM = new Set(['blocks.0.type', 'scope', 'from', 'to', 'limit', 'buckets']);

const servers: Side[] = [];

beforeAll(async () => {
  // Thousands of requests from one key and one address: their limits are tested elsewhere.
  const env = {
    RATE_LIMIT_INGEST_PER_MINUTE: '0',
    RATE_LIMIT_OTHER_PER_MINUTE: '0',
    RATE_LIMIT_BAD_KEYS_PER_MINUTE: '0',
    SHARE_RATE_PER_MINUTE: '0',
    SHARE_RATE_PER_ADDRESS_PER_MINUTE: '0',
    PUBLIC_URL: 'https://stats.example.com',
  };
  servers.push(await prepare(await startTestServer(env)));
  // On PostgreSQL, a SQLite twin takes every request too: the answers must be the same.
  if (onPostgres) {
    const twin = await createTestDatabase({ backend: 'sqlite' });
    servers.push(await prepare(await startTestServer(env, twin)));
  }
}, 60_000);

afterAll(async () => {
  for (const side of servers) {
    await side.reader.close();
    await side.server.close();
  }
});

const digest = async (side: Side) =>
  (await side.reader.everything(['last_used_at'], BACKGROUND_ROWS)).join('\n');

describe('NUL and control characters in every field and parameter', () => {
  it(`${CASES.length} places x ${VALUES.length} values: no 5xx, a NUL is a 400 naming the field, both backends alike`, async () => {
    let sent = 0;
    const failures: string[] = [];
    for (const one of CASES) {
      for (const value of VALUES) {
        const nul = value.includes('\u0000') && one.field !== '';
        const answers: unknown[] = [];
        for (const side of servers) {
          const before = nul ? await digest(side) : '';
          const res = await one.send(side, value);
          sent++;
          const what = `${side.server.database.backend} ${one.field} ${JSON.stringify(value)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
          if (res.statusCode >= 500) failures.push(`5xx: ${what}`);
          if (nul && one.field !== 'unknown') {
            if (res.statusCode !== 400) failures.push(`not 400: ${what}`);
            else if (!namesField(res, one.field)) failures.push(`field not named: ${what}`);
            if ((await digest(side)) !== before) failures.push(`changed the database: ${what}`);
          }
          answers.push(comparable(res, side));
        }
        const [first, second] = answers.map((answer) => JSON.stringify(answer));
        if (second !== undefined && first !== second) {
          failures.push(
            `backends differ on ${one.field} ${JSON.stringify(value)}:${difference(first ?? '', second)}`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBe(CASES.length * VALUES.length * servers.length);
  }, 300_000);
});

/**
 * Whether a 400 names the field: in its JSON `issues` (a free text with the rule's words; a field
 * of a fixed form, an enum or a date, may say that form instead) or on its page.
 */
function namesField(res: LightMyRequestResponse, field: string): boolean {
  if (String(res.headers['content-type']).startsWith('application/json')) {
    const body = res.json() as { error: string; issues?: { path: string; message: string }[] };
    return (
      body.issues?.some((issue) => issue.path.startsWith(field)) === true &&
      (FIXED_FORM.has(field) || body.issues.some((issue) => issue.message === NUL_PROBLEM))
    );
  }
  return res.body.includes(`“${field}” holds a NUL character`);
}

describe('other control characters are stored and given back as sent', () => {
  it('an event, a metric and the site, read back through the API', async () => {
    const controls = VALUES.filter((value) => !value.includes('\u0000')).join('|');
    for (const side of servers) {
      const key = side.me.apiKey;
      const { projectId } = side.me;
      const event = await side.server.call('POST', Paths.ingestEvents, {
        key,
        body: {
          projectId,
          eventType: `t${controls}`,
          description: controls,
          payload: { [controls]: controls },
        },
      });
      expect(event.statusCode).toBe(200);
      const metric = await side.server.call('POST', Paths.ingestMetrics, {
        key,
        body: { projectId, payload: { [`m${controls}`]: 3, note: controls } },
      });
      expect(metric.statusCode).toBe(200);
      const site = await side.server.call('POST', Paths.updateSiteConfiguration, {
        key,
        body: { bio: controls, location: controls },
      });
      expect(site.statusCode).toBe(200);

      const events = (
        await side.server.call(
          'GET',
          `${Paths.getEvents}?projectId=${projectId}&eventType=${enc(`t${controls}`)}`,
          { key },
        )
      ).json();
      expect(events.events).toHaveLength(1);
      expect(events.events[0]).toMatchObject({
        eventType: `t${controls}`,
        description: controls,
        payload: { [controls]: controls },
      });
      const metrics = (
        await side.server.call('GET', `${Paths.getMetrics}?projectId=${projectId}&limit=1`, { key })
      ).json();
      expect(metrics.metrics[0].payload).toEqual({ [`m${controls}`]: 3, note: controls });
      const keys = (
        await side.server.call('GET', `${Paths.getMetricKeys}?projectId=${projectId}`, { key })
      ).json();
      expect(keys.keys.map((k: { key: string }) => k.key)).toContain(`m${controls}`);
      const stored = (await side.server.call('GET', Paths.getSiteConfiguration, { key })).json();
      expect(stored).toMatchObject({ bio: controls, location: controls });
    }
  });
});

describe('the spec’s texts stay verbatim where it fixes them', () => {
  it('E2, E7 and E8 answer a NUL with their own 400 texts; the issues name the field', async () => {
    for (const side of servers) {
      const key = side.me.apiKey;
      const { projectId } = side.me;
      const cases: [string, unknown, string, string][] = [
        [
          Paths.forwardingToggle,
          { enabled: true, email: 'a\u0000@example.com' },
          SpecError.emailRequired,
          'email',
        ],
        [
          Paths.ingestEvents,
          { projectId, eventType: 'a\u0000' },
          SpecError.invalidBody,
          'eventType',
        ],
        [
          Paths.ingestEvents,
          { projectId, eventType: 'b', payload: { a: ['\u0000'] } },
          SpecError.invalidBody,
          'payload.a.0',
        ],
        [
          Paths.ingestMetrics,
          { projectId: `${projectId}\u0000`, payload: { a: 1 } },
          SpecError.projectIdRequired,
          'projectId',
        ],
        [
          Paths.ingestMetrics,
          { projectId, payload: { 'a\u0000': 1 } },
          OwnError.metricPayloadNul,
          'payload.a\u0000',
        ],
        [
          Paths.updateDisplayName,
          { display_name: 'bo\u0000b' },
          nulText('display_name'),
          'display_name',
        ],
      ];
      for (const [path, body, error, field] of cases) {
        const res = await side.server.call('POST', path, { key, body });
        expect({ path, status: res.statusCode, body: res.json() }).toEqual({
          path,
          status: 400,
          body: { error, issues: [{ path: field, message: NUL_PROBLEM }] },
        });
      }
    }
  });
});
