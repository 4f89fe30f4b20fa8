import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { errorOf, exchange, flood, parseAnswers } from '../helpers/raw-http.js';
import {
  ADMIN_TOKEN,
  eachTestServer,
  startTestServer,
  type TestAccount,
  type TestServer,
} from '../helpers/server.js';

/**
 * The connection level, over real sockets: what a client sends beyond a request, requests that
 * never finish, and the framework's own errors, each answered with JSON `{ "error" }`.
 */

let server: TestServer;
let me: TestAccount;
let origin: string;

eachTestServer((started) => ({ server, me } = started), { BODY_LIMIT: '4096' });

async function listen(): Promise<string> {
  origin = await server.app.listen({ port: 0, host: '127.0.0.1' });
  return origin;
}

const post = (path: string, key: string, body: string, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${key}\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}${extra}`;

const get = (path: string, key: string, connection = 'keep-alive') =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${key}\r\nConnection: ${connection}\r\n\r\n`;

describe('bytes after a request (defect 2)', () => {
  it('E3 with Content-Length: 0 then "{}" is answered 200 for the flip it made', async () => {
    await listen();
    const { text } = await exchange(
      origin,
      post('/pagesite/toggle-site-visibility', me.apiKey, '', '{}'),
    );
    const [first, second, ...more] = parseAnswers(text);
    expect({ status: first?.status, body: JSON.parse(first?.body ?? 'null') }).toEqual({
      status: 200,
      body: { success: true, newStatus: true },
    });
    // The stray bytes are a request of their own, and a bad one.
    expect({ status: second?.status, error: errorOf(second) }).toEqual({
      status: 400,
      error: SpecError.invalidBody,
    });
    expect(more).toEqual([]);
    const site = await server.call('GET', '/pagesite/get-site-configuration', { key: me.apiKey });
    expect(site.json().visibility).toBe(true);
  });

  it('E7 with a stray byte after its body answers the event it stored', async () => {
    await listen();
    const body = JSON.stringify({ projectId: me.projectId, eventType: 'build' });
    const { text } = await exchange(origin, post('/stats/ingest-events', me.apiKey, body, 'x'));
    const [first, second] = parseAnswers(text);
    expect(first?.status).toBe(200);
    const { id } = JSON.parse(first?.body ?? '{}');
    expect(second?.status).toBe(400);
    const events = await server.call('GET', `/stats/get-events?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(events.json().events.map((event: { id: string }) => event.id)).toEqual([id]);
  });

  it('a client that half-closes after its request still gets its answer, even a late one', async () => {
    const limited = await startTestServer({
      RATE_LIMIT_OTHER_PER_MINUTE: '1',
      RATE_LIMIT_OTHER_BURST: '1',
    });
    try {
      const account = await limited.account();
      const at = await limited.app.listen({ port: 0, host: '127.0.0.1' });
      const send = () =>
        exchange(at, get('/stats/get-projects', account.apiKey, 'close'), { halfClose: true });
      expect(parseAnswers((await send()).text).map((answer) => answer.status)).toEqual([200]);
      // A 429 is answered after a pause: the client's FIN arrives long before it.
      const [refused, ...more] = parseAnswers((await send()).text);
      expect({ status: refused?.status, more }).toEqual({ status: 429, more: [] });
      expect(errorOf(refused)).toBe(OwnError.rateLimited);
    } finally {
      await limited.close();
    }
  });

  it('pipelined requests followed by garbage each get their own answer, in order', async () => {
    await listen();
    const metric = JSON.stringify({ projectId: me.projectId, payload: { n: 1 } });
    const { text, closed } = await exchange(
      origin,
      get('/stats/get-projects', me.apiKey) +
        post('/stats/ingest-metrics', me.apiKey, metric) +
        get('/stats/get-projects', me.apiKey) +
        '\x00\x01garbage\r\n\r\n',
    );
    const answers = parseAnswers(text);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 400]);
    expect(JSON.parse(answers[1]?.body ?? '{}').message).toBe('Metric ingested successfully.');
    expect(errorOf(answers[3])).toBe(SpecError.invalidBody);
    expect(closed).toBe(true);
  });
});

describe('every answer is JSON { error } (defect 3)', () => {
  it('a request without a Host header', async () => {
    await listen();
    const { text } = await exchange(origin, 'GET /stats/get-projects HTTP/1.1\r\n\r\n');
    const [answer] = parseAnswers(text);
    expect({ status: answer?.status, error: errorOf(answer) }).toEqual({
      status: 400,
      error: OwnError.hostRequired,
    });
  });

  it('a path with a bad percent-encoding', async () => {
    await listen();
    for (const path of ['/stats/get-projects%zz', '/%', '/dashboard/%E0%A4%A']) {
      const { text } = await exchange(origin, get(path, me.apiKey, 'close'));
      const [answer] = parseAnswers(text);
      expect({ path, status: answer?.status, error: errorOf(answer) }).toEqual({
        path,
        status: 400,
        error: OwnError.badUrl,
      });
    }
  });

  it('CONNECT', async () => {
    await listen();
    const { text, closed } = await exchange(
      origin,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    );
    const [answer] = parseAnswers(text);
    expect({ status: answer?.status, error: errorOf(answer) }).toEqual({
      status: 405,
      error: OwnError.methodNotAllowed,
    });
    expect(answer?.headers.allow).toBeDefined();
    expect(closed).toBe(true);
  });

  it('CONNECT followed by bytes the server never reads: the connection still goes', async () => {
    await listen();
    // More than the sockets' buffers take: the client is still sending when the answer comes.
    const tunnel = Buffer.alloc(8 * 1024 * 1024, 'x');
    const { text, closed } = await exchange(
      origin,
      Buffer.concat([
        Buffer.from('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
        tunnel,
      ]),
      { timeoutMs: 5000 },
    );
    expect(parseAnswers(text).map((answer) => answer.status)).toEqual([405]);
    expect(closed).toBe(true);
  });

  it('a parameter too long for the router', async () => {
    await listen();
    const { text } = await exchange(
      origin,
      get(`/admin/accounts/${'a'.repeat(200)}/projects`, 'x', 'close'),
    );
    const [answer] = parseAnswers(text);
    expect(answer?.status).toBe(414);
    expect(errorOf(answer)).toBe(OwnError.uriTooLong);
  });
});

describe('a stalled request is answered 408 (defect 5)', () => {
  let slow: TestServer;
  beforeEach(async () => {
    slow = await startTestServer({ REQUEST_TIMEOUT_MS: '800', HEADERS_TIMEOUT_MS: '400' });
  });
  afterEach(() => slow.close());

  it('a body that stops coming, or headers that stop coming', async () => {
    const slowOrigin = await slow.app.listen({ port: 0, host: '127.0.0.1' });
    const account = await slow.account();
    for (const stalled of [
      `POST /stats/ingest-events HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${account.apiKey}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"projectId"',
      'GET /stats/get-projects HTTP/1.1\r\nHost: x\r\nX-API-',
    ]) {
      const { text, closed } = await exchange(slowOrigin, stalled, { timeoutMs: 5000 });
      const [answer, ...more] = parseAnswers(text);
      expect({ status: answer?.status, error: errorOf(answer), more, closed }).toEqual({
        status: 408,
        error: OwnError.requestTimeout,
        more: [],
        closed: true,
      });
    }
  });
});

describe('a body nobody will use is not read (defect 6)', () => {
  const GIGABYTE = 1024 ** 3;
  /** Far more than the socket buffers on both sides hold. */
  const LIMIT = 96 * 1024 ** 2;
  const head = (path: string, headers: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\n${headers}Content-Type: application/json\r\n` +
    `Content-Length: ${GIGABYTE}\r\n\r\n`;

  it('is answered, and the connection closed, without reading the body', async () => {
    await listen();
    for (const [path, headers, status, error] of [
      ['/stats/ingest-events', 'X-API-KEY: cis_wrong\r\n', 401, SpecError.unauthorizedStats],
      ['/admin/accounts', '', 401, OwnError.adminUnauthorized],
      ['/admin/accounts', 'Authorization: Bearer wrong\r\n', 401, OwnError.adminUnauthorized],
      // BODY_LIMIT (4096 here) applies to the admin API too.
      ['/admin/accounts', `Authorization: Bearer ${ADMIN_TOKEN}\r\n`, 413, OwnError.bodyTooLarge],
      ['/stats/ingest-events', `X-API-KEY: ${me.apiKey}\r\n`, 413, OwnError.bodyTooLarge],
      ['/nope', '', 413, OwnError.bodyTooLarge],
    ] as const) {
      const { text, sent, closed } = await flood(origin, head(path, headers), LIMIT);
      const [answer] = parseAnswers(text);
      expect({
        path,
        status: answer?.status,
        error: errorOf(answer),
        connection: answer?.headers.connection,
        closedByServer: closed && sent < LIMIT,
      }).toEqual({ path, status, error, connection: 'close', closedByServer: true });
    }
  });
});
