import { describe, expect, it } from 'vitest';
import { HttpStatsClient, SendFailure } from '../../reporter/client.js';
import { readActionContext } from '../../reporter/report-context.js';
import { planRequests } from '../../reporter/requests.js';
import { FakeTransport } from '../helpers/fake-transport.js';
import { reporterInputs } from '../helpers/reporter-inputs.js';

/** The HTTP client over a fake transport: what it sends, retries, accepts and refuses. */

const [event] = await planRequests(reporterInputs({ 'event-type': 'x' }), readActionContext({}));
const request = event as NonNullable<typeof event>;

const client = (transport: FakeTransport, retries = 0, timeoutSeconds = 5) =>
  new HttpStatsClient(transport, {
    baseUrl: 'https://stats.example/base',
    apiKey: 'secret-key',
    timeoutSeconds,
    retries,
    log: () => undefined,
    userAgent: 'test/1',
  });

const failureOf = async (promise: Promise<unknown>): Promise<SendFailure> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SendFailure) return error;
    throw error;
  }
  throw new Error('expected a SendFailure');
};

describe('HttpStatsClient', () => {
  it('posts the body with the key, the Idempotency-Key and JSON headers, under the base path', async () => {
    const transport = new FakeTransport();
    expect(await client(transport).send(request)).toEqual({
      id: 'id-1',
      message: 'ok',
      replayed: false,
    });
    expect(transport.sent).toEqual([
      {
        method: 'POST',
        url: 'https://stats.example/base/stats/ingest-events',
        body: request.body,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': 'test/1',
          'x-api-key': 'secret-key',
          'idempotency-key': request.idempotencyKey,
        },
        timeoutMs: 5000,
      },
    ]);
    expect(transport.abandoned).toBe(1);
  });

  it('says when the server replayed an earlier answer', async () => {
    const transport = new FakeTransport().answer({
      status: 200,
      headers: { 'idempotent-replayed': 'true' },
      body: '{"message":"ok","id":"earlier"}',
    });
    expect(await client(transport).send(request)).toMatchObject({ id: 'earlier', replayed: true });
  });

  it('a 2xx that is not the contract answer is refused, not taken as stored', async () => {
    const transport = new FakeTransport().answer({ status: 200, body: '<html>proxy</html>' });
    const failure = await failureOf(client(transport, 3).send(request));
    expect({ kind: failure.kind, message: failure.message }).toEqual({
      kind: 'refused',
      message: 'HTTP 200',
    });
    expect(transport.sent).toHaveLength(1);
  });

  it('a 4xx is refused at once, with the server text', async () => {
    const transport = new FakeTransport().answer({
      status: 401,
      body: '{"error":"Unauthorized: You must provide a valid API Key."}',
    });
    const failure = await failureOf(client(transport, 3).send(request));
    expect(failure.refused).toBe(true);
    expect(failure.message).toBe('HTTP 401: Unauthorized: You must provide a valid API Key.');
    expect(transport.sent).toHaveLength(1);
  });

  it("a 400 shows the server's issues, field by field, without the key or a webhook token", async () => {
    const transport = new FakeTransport().answer({
      status: 400,
      body: JSON.stringify({
        error: 'Invalid request body.',
        issues: [
          { path: 'payload', message: 'nested deeper than 64 levels' },
          { path: 'colour', message: 'unknown field' },
          // A server that echoed what it was sent: masked all the same.
          { path: 'chatWebhook.url', message: 'https://discord.com/api/webhooks/1/tok3n refused' },
          { path: '', message: 'sent with secret-key' },
          { path: 'a', message: 'x' },
          { path: 'b', message: 'y' },
          { path: 'c', message: 'z' },
        ],
      }),
    });
    const failure = await failureOf(client(transport, 3).send(request));
    expect(failure.refused).toBe(true);
    expect(failure.message).toBe(
      'HTTP 400: Invalid request body. (payload: nested deeper than 64 levels; colour: unknown ' +
        'field; chatWebhook.url: https://discord.com/api/webhooks/1/*** refused; (body): sent with ' +
        '***; a: x; and 2 more)',
    );
    expect(transport.sent).toHaveLength(1);
  });

  it('a 503 is retried, waiting out its Retry-After', async () => {
    const transport = new FakeTransport().answer({
      status: 503,
      headers: { 'retry-after': '0' },
      body: '{"error":"busy"}',
    });
    expect((await client(transport, 1).send(request)).id).toBe('id-1');
    expect(transport.sent).toHaveLength(2);
    expect(transport.sent[1]?.headers['idempotency-key']).toBe(request.idempotencyKey);
  });

  it('a Retry-After over 60 s ends the attempts', async () => {
    const transport = new FakeTransport().answer({
      status: 429,
      headers: { 'retry-after': '120' },
    });
    const failure = await failureOf(client(transport, 3).send(request));
    expect(failure.kind).toBe('final');
    expect(failure.message).toBe('HTTP 429 (the server asks to wait 120 s)');
  });

  it('a network error is unavailable; silence is cut at the timeout and the exchange abandoned', async () => {
    const down = new FakeTransport().answer(new Error('connect ECONNREFUSED'));
    const refused = await failureOf(client(down).send(request));
    expect([refused.kind, refused.message]).toEqual([
      'unavailable',
      'no answer: connect ECONNREFUSED',
    ]);

    const silent = new FakeTransport().answer('silence');
    const http = client(silent, 0, 0.1);
    const timedOut = await failureOf(http.send(request));
    expect([timedOut.kind, timedOut.message]).toEqual(['unavailable', 'no answer within 0.1 s']);
    expect(silent.abandoned).toBe(1);
    expect(http.abandonedRequests).toBe(true);
  });
});
