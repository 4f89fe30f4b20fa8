import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { HostedAreas } from '../../../contract/paths.js';
import { COMMON_ERRORS, ENDPOINT_DOCS, type EndpointDoc } from './endpoint-docs.js';

/** Where the document is served; `/docs` renders it. */
export const OPENAPI_PATH = '/openapi.json';

const HOSTED_PREFIXES = Object.values(HostedAreas);

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string', description: "The spec's text, verbatim." },
    issues: {
      type: 'array',
      description: 'On a 400 of a request that failed its schema: each offending field and why.',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: {
          path: { type: 'string', examples: ['chatWebhook.url'] },
          message: { type: 'string', examples: ['unknown field'] },
        },
      },
    },
  },
};

type Operation = Record<string, unknown>;

function responsesOf(doc: EndpointDoc): Record<string, unknown> {
  const responses: Record<string, unknown> = {
    [doc.success.status]:
      doc.success.example === undefined
        ? { description: 'Done; no body.' }
        : {
            description: 'Success.',
            content: { 'application/json': { example: doc.success.example } },
          },
  };
  for (const [status, texts] of Object.entries({ ...doc.errors, ...COMMON_ERRORS })) {
    responses[status] = {
      description: texts.map((text) => `\`${text}\``).join(' or '),
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: Object.fromEntries(
            texts.map((text, i) => [`e${i + 1}`, { summary: text, value: { error: text } }]),
          ),
        },
      },
    };
  }
  return responses;
}

/** Adds each endpoint's summary, tag, security, answers and error texts to the generated paths. */
function withEndpointDocs(document: Record<string, unknown>): Record<string, unknown> {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const doc = ENDPOINT_DOCS[`${method.toUpperCase()} ${path}`];
      if (!doc) continue;
      operation.summary = doc.summary;
      operation.tags = [doc.tag];
      operation.security =
        doc.auth === 'api-key'
          ? [{ apiKey: [] }]
          : doc.auth === 'admin'
            ? [{ adminToken: [] }]
            : [];
      operation.responses = responsesOf(doc);
    }
  }
  const components = (document.components ?? {}) as Record<string, Record<string, unknown>>;
  return {
    ...document,
    components: {
      ...components,
      schemas: { ...components.schemas, Error: ERROR_SCHEMA },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'ADMIN_TOKEN; the admin routes exist only when it is set.',
        },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document, generated from the routes' zod schemas (fastify-type-provider-zod's
 * transform) plus each endpoint's answers and error texts (endpoint-docs.ts). The hosted
 * service's alias paths are the same operations, so they are described once, in `info`.
 */
export async function openApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'ci-stats API',
        version: '1',
        description:
          'Every error is JSON `{ "error": "..." }` with the spec\'s verbatim text; a 400 of a ' +
          'request that failed its schema adds `issues`. Authentication: the `X-API-KEY` header. ' +
          "The hosted service's paths are served as aliases of the same operations: " +
          '`/api/slowstats/*` = `/stats/*`, `/api/slownetsite/*` = `/pagesite/*`, ' +
          '`/api/account/*` = `/account/*`, `/api/email-forwarding/*` = `/email-forwarding/*`.',
      },
    },
    transform: (input) => {
      const hosted = HOSTED_PREFIXES.some((prefix) => input.url.startsWith(`${prefix}/`));
      return jsonSchemaTransform(
        hosted ? { ...input, schema: { ...input.schema, hide: true } } : input,
      );
    },
    transformObject: (input) =>
      withEndpointDocs(jsonSchemaTransformObject(input) as Record<string, unknown>) as ReturnType<
        typeof jsonSchemaTransformObject
      >,
  });
}
