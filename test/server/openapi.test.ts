import { describe, expect, it } from 'vitest';
import { AdminError } from '../../contract/admin.js';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { KeyDisplayText, ProjectPagePaths } from '../../contract/project-page.js';
import { nulText } from '../../contract/text-rule.js';
import { FIELD_TEXTS, fieldText, VerdictPaths, VerdictText } from '../../contract/verdicts.js';
import {
  NOT_A_KIND,
  refuseLine,
  TESTS_NOT_IMPORTED,
} from '../../server/services/export/import-service.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Issue 14: an API that explains itself, at /openapi.json and /docs/api/reference. Issue 26: the
 * reference is derived from the routes (their schemas, areas, config and hooks), so it says what
 * the server does: checked here against the server's own answers.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

interface Response {
  description: string;
  content?: { 'application/json': { example?: unknown; examples?: object } };
}
interface Operation {
  summary: string;
  tags: string[];
  security: Record<string, unknown>[];
  responses: Record<string, Response>;
}
interface Doc {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}

const ADMIN_ROUTES = [
  'POST /admin/accounts',
  'POST /admin/accounts/{accountId}/keys',
  'DELETE /admin/keys/{keyId}',
  'POST /admin/accounts/{accountId}/projects',
  'GET /admin/accounts/{accountId}/projects',
];

/** Every text the server may answer in `error`: the contract's, and the health check's. */
const KNOWN_TEXTS = new Set<string>([
  ...Object.values(SpecError),
  ...Object.values(OwnError),
  ...Object.values(AdminError),
  ...['display_name', 'name', 'label'].map(nulText),
  'Database unavailable.',
  ...Object.values(VerdictText),
  // What test/server/key-display.test.ts gets for a pin past the limit (and its hidden twin).
  ...Object.values(KeyDisplayText),
  ...FIELD_TEXTS,
  fieldText('payload.directions.duration_ms'),
  'upper_boundary must be a probability in [0.5, 1) for t_test.',
  // What test/server/export.test.ts gets for a `records` line of no kind, and for a tests export.
  refuseLine(2, NOT_A_KIND).text,
  refuseLine(1, TESTS_NOT_IMPORTED).text,
]);

const document = async () => (await server.call('GET', '/openapi.json')).json() as Doc;

const operations = (doc: Doc): [string, string, Operation][] =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => [method.toUpperCase(), path, op] as const),
  ) as [string, string, Operation][];

const textsOf = (op: Operation, status: number): string[] =>
  Object.values(
    (op.responses[status]?.content?.['application/json']?.examples ?? {}) as Record<
      string,
      { value: { error: string } }
    >,
  ).map((example) => example.value.error);

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document covering every endpoint, and nothing else', async () => {
    const res = await server.call('GET', '/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json() as Doc;
    expect(doc.openapi).toBe('3.1.0');
    const documented = operations(doc).map(([method, path]) => `${method} ${path}`);
    // Every path of the contract, the admin routes, and no alias or page besides.
    for (const path of Object.values(Paths)) {
      expect(Object.keys(doc.paths), path).toContain(path);
    }
    for (const route of ADMIN_ROUTES) expect(documented).toContain(route);
    for (const path of [...Object.values(VerdictPaths), ...Object.values(ProjectPagePaths)]) {
      expect(Object.keys(doc.paths), path).toContain(path);
    }
    expect(documented).toHaveLength(
      Object.values(Paths).length +
        Object.values(VerdictPaths).length +
        Object.values(ProjectPagePaths).length +
        ADMIN_ROUTES.length,
    );
  });

  it('describes each operation fully, with texts the server really has', async () => {
    for (const [method, path, op] of operations(await document())) {
      const route = `${method} ${path}`;
      expect(op.summary, route).toBeTruthy();
      expect(op.tags, route).toHaveLength(1);
      const success = Object.keys(op.responses).filter((status) => /^2/.test(status));
      expect(success, route).toHaveLength(1);
      const errors = Object.keys(op.responses).filter((status) => !/^2/.test(status));
      expect(errors.length, route).toBeGreaterThan(0);
      for (const status of errors) {
        const texts = textsOf(op, Number(status));
        expect(texts.length, `${route} ${status}`).toBeGreaterThan(0);
        for (const text of texts) expect(KNOWN_TEXTS, `${route} ${status}`).toContain(text);
        expect(op.responses[status]?.description).toBe(texts.map((t) => `\`${t}\``).join(' or '));
      }
    }
  });

  it("carries each request's schema and the spec's verbatim texts", async () => {
    const doc = await document();
    const e7 = doc.paths[Paths.ingestEvents]?.post as Operation & {
      requestBody: {
        content: { 'application/json': { schema: { properties: object; required: string[] } } };
      };
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
    expect(
      (e8.requestBody.content['application/json'].schema.properties as Record<string, unknown>)
        .payload,
    ).toMatchObject(objectOfAnyFields);
    expect(textsOf(e7, 400)).toEqual(
      expect.arrayContaining([SpecError.invalidBody, OwnError.idempotencyKeyInvalid]),
    );
    expect(textsOf(e7, 401)).toEqual([SpecError.unauthorizedStats]);
    expect(textsOf(e7, 403)).toEqual([SpecError.forbiddenProject]);
    expect(textsOf(e7, 422)).toEqual([OwnError.idempotencyKeyReused]);
    expect(JSON.stringify(e7.responses['200'])).toContain('Event created successfully.');
    expect(textsOf(doc.paths[Paths.ingestMetrics]?.post as Operation, 400)).toEqual([
      SpecError.projectIdRequired,
      SpecError.metricPayloadRequired,
      OwnError.metricPayloadTooLarge,
      OwnError.metricPayloadNul,
      SpecError.invalidBody,
      OwnError.idempotencyKeyInvalid,
      fieldText('payload.directions.duration_ms'),
    ]);
    const e2 = doc.paths[Paths.forwardingToggle]?.post as Operation;
    expect(textsOf(e2, 404)).toEqual([SpecError.profileNotFound]);
    expect(textsOf(e2, 500)).toEqual([SpecError.forwardingSyncFailed, SpecError.internal]);
    expect(textsOf(doc.paths[Paths.toggleSiteVisibility]?.post as Operation, 500)).toEqual([
      SpecError.visibilityFailed,
    ]);
    const events = doc.paths[Paths.getEvents]?.get as Operation & {
      parameters: { name: string }[];
    };
    expect(events.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(['projectId', 'limit', 'cursor']),
    );
  });

  it('says what the server answers without a key, and to an ingest key', async () => {
    const ingest = (
      await server.call('POST', Paths.createApiKey, {
        key: me.apiKey,
        body: { scope: 'ingest' },
      })
    ).json() as { apiKey: string };
    for (const [method, path, op] of operations(await document())) {
      if (path.startsWith('/admin')) continue;
      const route = `${method} ${path}`;
      const keyless = await server.call(method as 'GET' | 'POST', path);
      if (op.security.length === 0) {
        expect(keyless.statusCode, route).not.toBe(401);
        expect(op.responses['401'], route).toBeUndefined();
        continue;
      }
      expect(keyless.statusCode, route).toBe(401);
      expect(textsOf(op, 401), route).toEqual([keyless.json().error]);
      const byIngestKey = await server.call(method as 'GET' | 'POST', path, { key: ingest.apiKey });
      const refused =
        byIngestKey.statusCode === 403 && byIngestKey.json().error === OwnError.ingestOnly;
      expect(textsOf(op, 403).includes(OwnError.ingestOnly), route).toBe(refused);
    }
  });
});

describe('GET /docs/api/reference', () => {
  it('is a readable page rendered by us, with every endpoint, and nothing from another host', async () => {
    const res = await server.call('GET', '/docs/api/reference');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'none'");
    for (const [, path] of operations(await document())) expect(res.body).toContain(path);
    expect(res.body).toContain(SpecError.forbiddenProject);
    expect(res.body).not.toMatch(/<script/i);
    expect(res.body).not.toMatch(/(src|href)="https?:\/\//);
    const stylesheet = /<link rel="stylesheet" href="(\/assets\/[^"]+)"/.exec(res.body)?.[1];
    const css = await server.call('GET', stylesheet as string);
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
  });
});
