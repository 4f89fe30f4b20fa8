import { describe, expect, it } from 'vitest';
import { SpecError } from '../../contract/error-texts.js';
import type { EventPage, MetricPage } from '../../contract/readback.js';
import { withoutIssues } from '../helpers/issues.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const WEBHOOK = 'https://discord.com/api/webhooks/123456789012345678/abcDEF_ghi-jkl';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: TestServer;
let me: TestAccount;

const ingestEvent = (body: unknown) =>
  server.call('POST', '/stats/ingest-events', { key: me.apiKey, body });
const ingestMetric = (body: unknown) =>
  server.call('POST', '/stats/ingest-metrics', { key: me.apiKey, body });
const events = async (query = `projectId=${me.projectId}`) =>
  (await server.call('GET', `/stats/get-events?${query}`, { key: me.apiKey })).json() as EventPage;
const metrics = async (query = `projectId=${me.projectId}`) =>
  (
    await server.call('GET', `/stats/get-metrics?${query}`, { key: me.apiKey })
  ).json() as MetricPage;

eachTestServer((started) => ({ server, me } = started));

describe('E6 get projects', () => {
  it('lists only the caller’s projects, ordered by creation, timestamps ISO with ms and Z', async () => {
    const admin = { authorization: 'Bearer test-admin-token-0123456789' };
    await server.call('POST', `/admin/accounts/${me.accountId}/projects`, {
      body: { name: 'second' },
      headers: admin,
    });
    await server.account();
    const res = await server.call('GET', '/stats/get-projects', { key: me.apiKey });
    expect(res.statusCode).toBe(200);
    const { projects } = res.json();
    expect(projects.map((p: { name: string }) => p.name)).toEqual(['test project', 'second']);
    for (const project of projects) {
      expect(Object.keys(project).sort()).toEqual(['created_at', 'id', 'name']);
      expect(project.created_at).toMatch(ISO_MS);
    }
  });
});

describe('E7 ingest events', () => {
  it('stores a full event and reads it back', async () => {
    const res = await ingestEvent({
      projectId: me.projectId,
      eventType: 'deploy',
      description: 'Deployed v1',
      payload: { version: '1.0.0', nested: { ok: true } },
      color: 16777215,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      message: 'Event created successfully.',
      id: expect.stringMatching(UUID),
    });
    const page = await events();
    expect(page).toEqual({
      events: [
        {
          id: body.id,
          projectId: me.projectId,
          eventType: 'deploy',
          description: 'Deployed v1',
          payload: { version: '1.0.0', nested: { ok: true } },
          color: 16777215,
          created_at: expect.stringMatching(ISO_MS),
          notification: null,
        },
      ],
      nextCursor: null,
    });
  });

  it('a minimal event has nulls for what was not sent', async () => {
    await ingestEvent({ projectId: me.projectId, eventType: 'x' });
    expect((await events()).events[0]).toMatchObject({
      description: null,
      payload: null,
      color: null,
    });
  });

  it('a chatWebhook is recorded for delivery with the event', async () => {
    await ingestEvent({
      projectId: me.projectId,
      eventType: 'x',
      chatWebhook: { url: WEBHOOK, title: 'Hi' },
    });
    const [event] = (await events()).events;
    expect(event?.notification).toMatchObject({
      status: expect.stringMatching(/^(pending|delivered|failed)$/),
    });
  });

  const base = () => ({ projectId: me.projectId, eventType: 'build' });
  const invalid: [string, () => unknown][] = [
    ['empty projectId', () => ({ ...base(), projectId: '' })],
    ['projectId over 128', () => ({ ...base(), projectId: 'p'.repeat(129) })],
    ['empty eventType', () => ({ ...base(), eventType: '' })],
    ['eventType over 100', () => ({ ...base(), eventType: 'e'.repeat(101) })],
    ['description over 2000', () => ({ ...base(), description: 'd'.repeat(2001) })],
    ['payload array', () => ({ ...base(), payload: [1] })],
    ['payload null', () => ({ ...base(), payload: null })],
    ['payload over 32 KiB', () => ({ ...base(), payload: { big: 'x'.repeat(32 * 1024) } })],
    ['color negative', () => ({ ...base(), color: -1 })],
    ['color too big', () => ({ ...base(), color: 16777216 })],
    ['color fraction', () => ({ ...base(), color: 1.5 })],
    ['color as string', () => ({ ...base(), color: '#ffffff' })],
    ['unknown field', () => ({ ...base(), colour: 1 })],
    ['chatWebhook without title', () => ({ ...base(), chatWebhook: { url: WEBHOOK } })],
    [
      'chatWebhook title over 256',
      () => ({ ...base(), chatWebhook: { url: WEBHOOK, title: 't'.repeat(257) } }),
    ],
    [
      'chatWebhook description over 4096',
      () => ({
        ...base(),
        chatWebhook: { url: WEBHOOK, title: 't', description: 'd'.repeat(4097) },
      }),
    ],
    [
      'chatWebhook color too big',
      () => ({ ...base(), chatWebhook: { url: WEBHOOK, title: 't', color: 2 ** 24 } }),
    ],
    ['body is an array', () => [base()]],
    ['no body', () => undefined],
  ];

  it.each(invalid)('%s is 400 Invalid request body. and stores nothing', async (_name, body) => {
    const res = await ingestEvent(body());
    expect({ status: res.statusCode, body: withoutIssues(res.json()) }).toEqual({
      status: 400,
      body: { error: SpecError.invalidBody },
    });
    expect((await events()).events).toEqual([]);
  });

  it('limits are inclusive', async () => {
    const res = await ingestEvent({
      projectId: me.projectId,
      eventType: 'e'.repeat(100),
      description: 'd'.repeat(2000),
      payload: { big: 'x'.repeat(32 * 1024 - 10) },
      color: 0,
      chatWebhook: {
        url: WEBHOOK,
        title: 't'.repeat(256),
        description: 'd'.repeat(4096),
        color: 16777215,
      },
    });
    expect(res.statusCode).toBe(200);
  });

  it('malformed JSON is 400 Invalid request body.', async () => {
    const res = await ingestEvent('{"projectId": ');
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 400,
      body: { error: SpecError.invalidBody },
    });
  });
});

describe('E8 ingest metrics', () => {
  it('stores a metric and reads it back', async () => {
    const res = await ingestMetric({
      projectId: me.projectId,
      payload: { duration_ms: 1234, ok: true },
    });
    expect(res.statusCode).toBe(200);
    const { id, message } = res.json();
    expect(message).toBe('Metric ingested successfully.');
    expect(id).toMatch(UUID);
    expect(await metrics()).toEqual({
      metrics: [
        {
          id,
          projectId: me.projectId,
          payload: { duration_ms: 1234, ok: true },
          created_at: expect.stringMatching(ISO_MS),
        },
      ],
      nextCursor: null,
    });
  });

  it('checks projectId before payload, and both before ownership', async () => {
    const both = await ingestMetric({ payload: 'nope' });
    expect(withoutIssues(both.json())).toEqual({ error: SpecError.projectIdRequired });
    const foreignWithoutPayload = await ingestMetric({ projectId: 'someone-elses' });
    expect(withoutIssues(foreignWithoutPayload.json())).toEqual({
      error: SpecError.metricPayloadRequired,
    });
    for (const body of [undefined, [], '"text"', 42]) {
      expect(withoutIssues((await ingestMetric(body)).json())).toEqual({
        error: SpecError.projectIdRequired,
      });
    }
  });

  it('an empty object is a valid payload', async () => {
    expect((await ingestMetric({ projectId: me.projectId, payload: {} })).statusCode).toBe(200);
  });
});

describe('read-back pagination', () => {
  it('pages newest first with an opaque cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await ingestEvent({ projectId: me.projectId, eventType: `e${i}` })).json().id);
    }
    const first = await events(`projectId=${me.projectId}&limit=2`);
    expect(first.events.map((e) => e.id)).toEqual([ids[4], ids[3]]);
    const second = await events(`projectId=${me.projectId}&limit=2&cursor=${first.nextCursor}`);
    expect(second.events.map((e) => e.id)).toEqual([ids[2], ids[1]]);
    const third = await events(`projectId=${me.projectId}&limit=2&cursor=${second.nextCursor}`);
    expect(third).toMatchObject({ events: [{ id: ids[0] }], nextCursor: null });
  });

  it('metrics page the same way', async () => {
    for (let i = 0; i < 3; i++) await ingestMetric({ projectId: me.projectId, payload: { i } });
    const first = await metrics(`projectId=${me.projectId}&limit=2`);
    expect(first.metrics.map((m) => m.payload.i)).toEqual([2, 1]);
    const second = await metrics(`projectId=${me.projectId}&limit=2&cursor=${first.nextCursor}`);
    expect(second).toMatchObject({ metrics: [{ payload: { i: 0 } }], nextCursor: null });
  });

  it.each([
    // Every read-back endpoint answers a missing projectId with E8's text (issue 14).
    ['get-events', '', SpecError.projectIdRequired],
    ['get-metrics', '', SpecError.projectIdRequired],
    ['get-events', '&limit=0', SpecError.invalidBody],
    ['get-events', '&limit=201', SpecError.invalidBody],
    ['get-events', '&limit=abc', SpecError.invalidBody],
    ['get-metrics', '&cursor=%%%', SpecError.invalidBody],
    ['get-metrics', '&cursor=bm90LWEtbnVtYmVy', SpecError.invalidBody],
  ])('%s with bad query %j is 400', async (endpoint, extra, error) => {
    const query = extra === '' ? '' : `projectId=${me.projectId}${extra}`;
    const res = await server.call('GET', `/stats/${endpoint}?${query}`, { key: me.apiKey });
    expect({ status: res.statusCode, body: withoutIssues(res.json()) }).toEqual({
      status: 400,
      body: { error },
    });
  });

  it('limit 200 is allowed; foreign projects are 403', async () => {
    expect(
      (
        await server.call('GET', `/stats/get-events?projectId=${me.projectId}&limit=200`, {
          key: me.apiKey,
        })
      ).statusCode,
    ).toBe(200);
    const other = await server.account();
    for (const endpoint of ['get-events', 'get-metrics']) {
      const res = await server.call('GET', `/stats/${endpoint}?projectId=${other.projectId}`, {
        key: me.apiKey,
      });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 403,
        body: { error: SpecError.forbiddenProject },
      });
    }
  });
});
