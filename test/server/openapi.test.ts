import { describe, expect, it } from 'vitest';
import { SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { ENDPOINT_DOCS } from '../../server/http/api/endpoint-docs.js';
import { eachTestServer, type TestServer } from '../helpers/server.js';

/** Issue 14: an API that explains itself, at /openapi.json and /docs. */

let server: TestServer;
eachTestServer((started) => ({ server } = started));

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
}

const routes = (): [string, string][] =>
  Object.keys(ENDPOINT_DOCS).map((key) => key.split(' ') as [string, string]);

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document covering every endpoint, with examples and error texts', async () => {
    const res = await server.call('GET', '/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json() as Doc;
    expect(doc.openapi).toBe('3.1.0');
    // Every route of ours is documented, and nothing else (no alias, no page).
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(Object.keys(ENDPOINT_DOCS).sort());
    for (const path of Object.values(Paths)) {
      expect(Object.keys(doc.paths), path).toContain(path);
    }
    for (const [method, path] of routes()) {
      const op = doc.paths[path]?.[method.toLowerCase()] as {
        summary: string;
        responses: Record<string, { description: string }>;
      };
      expect(op.summary, `${method} ${path}`).toBeTruthy();
      expect(Object.keys(op.responses).length).toBeGreaterThan(1);
    }
  });

  it("carries each request's schema and the spec's verbatim texts", async () => {
    const doc = (await server.call('GET', '/openapi.json')).json() as Doc;
    const e7 = doc.paths[Paths.ingestEvents]?.post as {
      requestBody: {
        content: { 'application/json': { schema: { properties: object; required: string[] } } };
      };
      responses: Record<string, { description: string; content: Record<string, unknown> }>;
    };
    const schema = e7.requestBody.content['application/json'].schema;
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining([
        'projectId',
        'eventType',
        'payload',
        'chatWebhook',
        'discordWebhook',
      ]),
    );
    expect(schema.required).toEqual(expect.arrayContaining(['projectId', 'eventType']));
    // Payloads are objects of any fields, not "any".
    const objectOfAnyFields = { type: 'object', additionalProperties: true };
    expect((schema.properties as Record<string, unknown>).payload).toMatchObject(objectOfAnyFields);
    const e8 = doc.paths[Paths.ingestMetrics]?.post as typeof e7;
    const e8Schema = e8.requestBody.content['application/json'].schema;
    expect((e8Schema.properties as Record<string, unknown>).payload).toMatchObject(
      objectOfAnyFields,
    );
    expect(e7.responses['400']?.description).toContain(SpecError.invalidBody);
    expect(e7.responses['401']?.description).toContain(SpecError.unauthorizedStats);
    expect(e7.responses['403']?.description).toContain(SpecError.forbiddenProject);
    expect(JSON.stringify(e7.responses['200'])).toContain('Event created successfully.');
    const e2 = doc.paths[Paths.forwardingToggle]?.post as {
      responses: Record<string, { description: string }>;
    };
    expect(e2.responses['404']?.description).toContain(SpecError.profileNotFound);
    const events = doc.paths[Paths.getEvents]?.get as { parameters: { name: string }[] };
    expect(events.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(['projectId', 'limit', 'cursor']),
    );
  });
});

describe('GET /docs', () => {
  it('is a readable page rendered by us, with every endpoint, and nothing from another host', async () => {
    const res = await server.call('GET', '/docs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'none'");
    for (const [, path] of routes()) expect(res.body).toContain(path);
    expect(res.body).toContain(SpecError.forbiddenProject);
    expect(res.body).not.toMatch(/<script/i);
    expect(res.body).not.toMatch(/(src|href)="https?:\/\//);
    const css = await server.call('GET', '/docs/style.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
  });
});
