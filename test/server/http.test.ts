import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Protocol-level errors are JSON `{ error }` on every route. */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started), { BODY_LIMIT: '2048' });

describe('errors everywhere', () => {
  it('malformed JSON is 400 Invalid request body.', async () => {
    for (const url of [
      '/stats/ingest-metrics',
      '/pagesite/update-site-configuration',
      '/account/update-display-name',
    ]) {
      const res = await server.call('POST', url, { key: me.apiKey, body: '{"a":' });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 400,
        body: { error: SpecError.invalidBody },
      });
    }
  });

  it('prototype poisoning is refused by the parser, even where the schema takes any keys', async () => {
    // A metric payload takes any keys, so only the JSON parser stands in the way here.
    for (const poison of [
      '{"__proto__": {"admin": true}}',
      '{"constructor": {"prototype": {"admin": true}}}',
    ]) {
      const res = await server.call('POST', '/stats/ingest-metrics', {
        key: me.apiKey,
        body: `{"projectId": "${me.projectId}", "payload": ${poison}}`,
      });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 400,
        body: { error: SpecError.invalidBody },
      });
    }
  });

  it('a request Node cannot parse still gets a JSON error', async () => {
    const url = new URL(await server.app.listen({ port: 0, host: '127.0.0.1' }));
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          'POST /stats/ingest-metrics HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}',
        );
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('Content-Type: application/json');
    expect(answer.split('\r\n\r\n')[1]).toBe(JSON.stringify({ error: SpecError.invalidBody }));
  });

  it('a body over BODY_LIMIT is 413', async () => {
    const res = await server.call('POST', '/stats/ingest-metrics', {
      key: me.apiKey,
      body: { projectId: me.projectId, payload: { x: 'y'.repeat(4096) } },
    });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 413,
      body: { error: OwnError.bodyTooLarge },
    });
  });

  it('a non-JSON content type is 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await server.call('POST', '/stats/ingest-metrics', {
        key: me.apiKey,
        body: 'projectId=x',
        headers: { 'content-type': type },
      });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 415,
        body: { error: OwnError.unsupportedMediaType },
      });
    }
  });

  it('an unknown route is 404 JSON', async () => {
    for (const [method, url] of [
      ['GET', '/nope'],
      ['GET', '/stats/nope'],
      ['POST', '/admin/nope'],
    ] as const) {
      const res = await server.call(method, url, { key: me.apiKey });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 404,
        body: { error: OwnError.notFound },
      });
    }
  });

  it('a known path with the wrong method is 405 JSON with Allow', async () => {
    for (const [method, url, allow] of [
      ['GET', '/stats/ingest-events', 'POST'],
      ['POST', '/stats/get-projects', 'GET, HEAD'],
      ['DELETE', '/pagesite/get-themes', 'GET, HEAD'],
      ['PUT', '/admin/keys/some-key', 'DELETE'],
      ['POST', '/healthz?x=1', 'GET, HEAD'],
    ] as const) {
      const res = await server.call(method, url, { key: me.apiKey });
      expect({
        url,
        status: res.statusCode,
        allow: res.headers.allow,
        body: res.json(),
      }).toEqual({ url, status: 405, allow, body: { error: OwnError.methodNotAllowed } });
    }
  });

  it('GET /healthz answers after a database round-trip', async () => {
    const res = await server.call('GET', '/healthz');
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 200,
      body: { status: 'ok' },
    });
  });
});
