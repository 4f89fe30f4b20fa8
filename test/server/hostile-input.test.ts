import { describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { Limits } from '../../contract/limits.js';
import { PayloadProblem } from '../../contract/payload.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Issue 14, defects 1 and 8, and the `issues` of a 400: hostile bodies are refused, never a 500. */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

/** `{"a":{"a":...1}}`: an object `levels` deep. */
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"a":1}${'}'.repeat(levels - 1)}`;

const post = (path: string, raw: string) =>
  server.call('POST', path, { key: me.apiKey, body: raw });

async function storedEvents() {
  const res = await server.call('GET', `/stats/get-events?projectId=${me.projectId}`, {
    key: me.apiKey,
  });
  return (res.json() as { events: { eventType: string; payload: unknown }[] }).events;
}

async function storedMetrics() {
  const res = await server.call('GET', `/stats/get-metrics?projectId=${me.projectId}`, {
    key: me.apiKey,
  });
  return (res.json() as { metrics: { payload: unknown }[] }).metrics;
}

describe('defect 1: nesting', () => {
  it.each([65, 4_100, 100_000])('E7 with a payload %i levels deep is 400', async (levels) => {
    const res = await post(
      '/stats/ingest-events',
      `{"projectId":"${me.projectId}","eventType":"x","payload":${nested(levels)}}`,
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: SpecError.invalidBody,
      issues: [{ path: 'payload', message: `must nest at most ${Limits.payloadDepth} levels` }],
    });
    expect(await storedEvents()).toEqual([]);
  });

  it.each([65, 4_100, 100_000])('E8 with a payload %i levels deep is 400', async (levels) => {
    const res = await post(
      '/stats/ingest-metrics',
      `{"projectId":"${me.projectId}","payload":${nested(levels)}}`,
    );
    expect({ status: res.statusCode, error: res.json().error }).toEqual({
      status: 400,
      error: SpecError.metricPayloadRequired,
    });
    expect(await storedMetrics()).toEqual([]);
  });

  it('E8 without projectId and a deep payload: Project ID is required.', async () => {
    const res = await post('/stats/ingest-metrics', `{"payload":${nested(5_000)}}`);
    expect({ status: res.statusCode, error: res.json().error }).toEqual({
      status: 400,
      error: SpecError.projectIdRequired,
    });
  });

  it('64 levels are accepted and read back as sent', async () => {
    const payload = JSON.parse(nested(64));
    for (const path of ['/stats/ingest-events', '/stats/ingest-metrics']) {
      const res = await post(
        path,
        JSON.stringify({ projectId: me.projectId, eventType: 'x', payload }).replace(
          path.endsWith('metrics') ? ',"eventType":"x"' : '',
          '',
        ),
      );
      expect(res.statusCode).toBe(200);
    }
    expect((await storedEvents())[0]?.payload).toEqual(payload);
    expect((await storedMetrics())[0]?.payload).toEqual(payload);
  });

  it('a deep body elsewhere (E4) is 400 too', async () => {
    const res = await post('/pagesite/update-site-configuration', `{"bio":${nested(50_000)}}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(SpecError.invalidBody);
  });
});

describe("a payload's size, in bytes of its JSON", () => {
  /** `{"big":"…"}` whose JSON is `bytes` bytes of UTF-8, made of `char` (1 or 2 bytes each). */
  const payloadOf = (bytes: number, char: string) => {
    const overhead = '{"big":""}'.length;
    const payload = { big: char.repeat((bytes - overhead) / Buffer.byteLength(char)) };
    expect(Buffer.byteLength(JSON.stringify(payload))).toBe(bytes);
    return payload;
  };

  const routes = {
    E8: {
      path: '/stats/ingest-metrics',
      body: (payload: object) => ({ projectId: me.projectId, payload }),
      refusal: (res: { json(): { error: string } }) =>
        expect(res.json().error).toBe(OwnError.metricPayloadTooLarge),
      stored: storedMetrics,
    },
    E7: {
      path: '/stats/ingest-events',
      body: (payload: object) => ({ projectId: me.projectId, eventType: 'x', payload }),
      refusal: (res: { json(): unknown }) =>
        expect(res.json()).toEqual({
          error: SpecError.invalidBody,
          issues: [{ path: 'payload', message: PayloadProblem.tooLarge }],
        }),
      stored: storedEvents,
    },
  };

  it.each([
    ['E8', 'x'],
    ['E8', 'é'],
    ['E7', 'x'],
    ['E7', 'é'],
  ] as const)('%s: at the limit is stored, a byte over is 400 (%s)', async (name, char) => {
    const route = routes[name];
    const atLimit = await post(
      route.path,
      JSON.stringify(route.body(payloadOf(Limits.payloadBytes, char))),
    );
    expect(atLimit.statusCode, atLimit.body).toBe(200);
    const over = await post(
      route.path,
      JSON.stringify(route.body(payloadOf(Limits.payloadBytes + Buffer.byteLength(char), char))),
    );
    expect(over.statusCode).toBe(400);
    route.refusal(over);
    expect(await route.stored()).toHaveLength(1);
  });
});

describe('defect 8: what is accepted is what is stored', () => {
  it('a lone surrogate in E7 eventType is 400 and nothing is stored', async () => {
    const res = await post(
      '/stats/ingest-events',
      `{"projectId":"${me.projectId}","eventType":"build\\ud800"}`,
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: SpecError.invalidBody,
      issues: [
        {
          path: 'eventType',
          message: 'contains a lone UTF-16 surrogate (not valid Unicode text)',
        },
      ],
    });
    expect(await storedEvents()).toEqual([]);
  });

  it('a lone surrogate in E4 bio (or a payload key) is 400 and changes nothing', async () => {
    const before = (
      await server.call('GET', '/pagesite/get-site-configuration', { key: me.apiKey })
    ).json();
    const res = await post('/pagesite/update-site-configuration', '{"bio":"\\uDC00 hi"}');
    expect({ status: res.statusCode, error: res.json().error }).toEqual({
      status: 400,
      error: SpecError.invalidBody,
    });
    const after = (
      await server.call('GET', '/pagesite/get-site-configuration', { key: me.apiKey })
    ).json();
    expect(after).toEqual(before);
    const key = await post(
      '/stats/ingest-metrics',
      `{"projectId":"${me.projectId}","payload":{"\\ud83d":1}}`,
    );
    expect(key.statusCode).toBe(400);
    expect(key.json().issues).toEqual([
      {
        path: 'payload.\ud83d',
        message: 'contains a lone UTF-16 surrogate (not valid Unicode text)',
      },
    ]);
  });

  it('well-formed text outside the BMP is stored and read back as sent', async () => {
    const bio = 'ship it 🚀 \u{1F600}';
    const res = await server.call('POST', '/pagesite/update-site-configuration', {
      key: me.apiKey,
      body: { bio },
    });
    expect(res.json().site.bio).toBe(bio);
    const read = await server.call('GET', '/pagesite/get-site-configuration', { key: me.apiKey });
    expect(read.json().bio).toBe(bio);
  });

  it.each([
    ['1e309', 'is a number too large for a 64-bit float'],
    ['-1e400', 'is a number too large for a 64-bit float'],
    // The forms the pre-check of faithful-json.ts must not let through unwalked.
    ['2E+308', 'is a number too large for a 64-bit float'],
    [`1${'0'.repeat(250)}e99`, 'is a number too large for a 64-bit float'],
    [`1${'0'.repeat(400)}.5`, 'is a number too large for a 64-bit float'],
    ['9007199254740993', 'is an integer beyond 2^53 - 1, which cannot be stored exactly'],
    ['-9007199254740993', 'is an integer beyond 2^53 - 1, which cannot be stored exactly'],
    [
      '123456789012345678901234567890',
      'is an integer beyond 2^53 - 1, which cannot be stored exactly',
    ],
  ])('E8 payload value %s is 400 and nothing is stored', async (number, message) => {
    const res = await post(
      '/stats/ingest-metrics',
      `{"projectId":"${me.projectId}","payload":{"duration":${number}}}`,
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: SpecError.metricPayloadRequired,
      issues: [{ path: 'payload.duration', message }],
    });
    expect(await storedMetrics()).toEqual([]);
    const event = await post(
      '/stats/ingest-events',
      `{"projectId":"${me.projectId}","eventType":"x","payload":{"n":[1,${number}]}}`,
    );
    expect(event.json()).toEqual({
      error: SpecError.invalidBody,
      issues: [{ path: 'payload.n.1', message }],
    });
  });

  it('numbers that are kept exactly are accepted and read back as sent', async () => {
    const raw =
      '{"max":9007199254740991,"min":-9007199254740991,"big":1e300,"tiny":5e-324,"f":0.1,"s":"9007199254740993"}';
    const res = await post(
      '/stats/ingest-metrics',
      `{"projectId":"${me.projectId}","payload":${raw}}`,
    );
    expect(res.statusCode).toBe(200);
    expect((await storedMetrics())[0]?.payload).toEqual(JSON.parse(raw));
  });
});

describe('an API that explains itself', () => {
  it('a 400 keeps the spec text and names each offending field', async () => {
    const res = await server.call('POST', '/stats/ingest-events', {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        eventType: 'x'.repeat(Limits.eventTypeLength + 1),
        colour: 5,
        color: 'red',
        chatWebhook: { url: 'https://example.com/hook', title: 't' },
      },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json() as { error: string; issues: { path: string; message: string }[] };
    expect(body.error).toBe(SpecError.invalidBody);
    expect(body.issues.map((issue) => issue.path).sort()).toEqual(
      ['chatWebhook.url', 'color', 'colour', 'eventType'].sort(),
    );
    expect(body.issues.find((issue) => issue.path === 'colour')?.message).toBe('unknown field');
    for (const issue of body.issues) expect(issue.message).not.toBe('Invalid input');
  });

  it('E8 and E2 keep their own texts, with issues', async () => {
    const res = await server.call('POST', '/stats/ingest-metrics', {
      key: me.apiKey,
      body: { payload: {} },
    });
    expect(res.json()).toMatchObject({
      error: SpecError.projectIdRequired,
      issues: [{ path: 'projectId' }],
    });
    expect(res.json().error).not.toBe(OwnError.notFound);
  });

  it.each([
    'get-events',
    'get-metrics',
    'get-metric-keys',
    'get-metric-series?key=x&',
    'get-build-summary',
    'get-share-links',
  ])('read-back %s answers a missing projectId like the others', async (endpoint) => {
    const url = endpoint.includes('?') ? `/stats/${endpoint}` : `/stats/${endpoint}?`;
    const res = await server.call('GET', url, { key: me.apiKey });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: SpecError.projectIdRequired,
      issues: [{ path: 'projectId', message: expect.any(String) }],
    });
  });
});
