import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { HostedAreas } from '../../../contract/paths.js';
import { type DescribedRoute, describeRoute } from './route-docs.js';

/** Where the document is served; the pages render it at /docs/api/reference. */
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

function responsesOf({ success, errors }: DescribedRoute): Record<string, unknown> {
  const responses: Record<string, unknown> = {
    [success.status ?? 200]:
      success.example === undefined
        ? { description: 'Done; no body.' }
        : {
            description: 'Success.',
            content: { 'application/json': { example: success.example } },
          },
  };
  for (const [status, texts] of errors) {
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

/** Each operation's tag, security and answers, from its route's description (route-docs.ts). */
function withRouteDocs(
  document: Record<string, unknown>,
  described: Map<string, DescribedRoute>,
): Record<string, unknown> {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const route = described.get(`${method.toUpperCase()} ${path}`);
      if (!route) continue;
      operation.tags = [route.tag];
      operation.security =
        route.auth === 'api-key'
          ? [{ apiKey: [] }]
          : route.auth === 'admin'
            ? [{ adminToken: [] }]
            : [];
      operation.responses = responsesOf(route);
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

/** `/admin/accounts/:accountId/keys` as OpenAPI writes it: `/admin/accounts/{accountId}/keys`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * The OpenAPI 3.1 document, generated from the routes' zod schemas (fastify-type-provider-zod's
 * transform) plus each route's answers and error texts, derived from what the route and its area
 * declare (route-docs.ts). The hosted
 * service's alias paths are the same operations, so they are described once, in `info`.
 */
export async function openApi(app: FastifyInstance): Promise<void> {
  const described = new Map<string, DescribedRoute>();
  // Under BASE_PATH the paths stay the spec's (`/stats/ingest-events`) and the base path is the
  // server's URL, as OpenAPI has it: clients join the two.
  const basePath = app.config.basePath;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      ...(basePath === '' ? {} : { servers: [{ url: app.config.publicUrl ?? basePath }] }),
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
    // The transform below takes the base path off; swagger's own stripping would take `/stats`
    // off the spec's paths too when BASE_PATH is /stats.
    stripBasePath: false,
    transform: (routeInput) => {
      const input = { ...routeInput, url: routeInput.url.slice(basePath.length) || '/' };
      const hosted = HOSTED_PREFIXES.some((prefix) => input.url.startsWith(`${prefix}/`));
      const route = hosted ? undefined : describeRoute(input.route);
      if (route) {
        const methods = [input.route.method].flat();
        for (const method of methods) described.set(`${method} ${openApiPath(input.url)}`, route);
      }
      // A route the reference does not describe (pages, the document itself) is left out.
      const hide = hosted || (route === undefined && input.schema?.hide !== false);
      return jsonSchemaTransform(
        hide ? { ...input, schema: { ...input.schema, hide: true } } : input,
      );
    },
    transformObject: (input) =>
      withRouteDocs(
        jsonSchemaTransformObject(input) as Record<string, unknown>,
        described,
      ) as ReturnType<typeof jsonSchemaTransformObject>,
  });
}
