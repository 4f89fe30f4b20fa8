import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import {
  AccountParams,
  AdminCreateProjectRequest,
  CreateAccountRequest,
  createAccountErrorText,
  createProjectErrorText,
  KeyParams,
} from '../../../contract/admin.js';
import { CreateApiKeyRequest } from '../../../contract/api-keys.js';
import { OwnError } from '../../../contract/error-texts.js';
import { Conflict, NotFound } from '../../domain/domain-errors.js';
import { jsonNotFound } from '../api/error-handler.js';
import { ID, PROJECT } from '../api/examples.js';
import { describeArea } from '../api/route-docs.js';

const UNKNOWN_ACCOUNT = new NotFound('account');

const BEARER = /^bearer +(.*)$/i;

const digest = (text: string) => createHash('sha256').update(text).digest();

const routes: FastifyPluginAsyncZod = async (app) => {
  const { admin } = app.services;

  app.post(
    '/accounts',
    {
      schema: { summary: 'Create an account with its first key', body: CreateAccountRequest },
      config: {
        invalid: createAccountErrorText,
        docs: { success: { status: 201, example: { accountId: ID, apiKey: 'cis_…', keyId: ID } } },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await admin.createAccount(request.body?.label ?? undefined)),
  );

  // The same body as POST /account/create-api-key, or none (a full key); the answer stays
  // `{ keyId, apiKey }` as before.
  app.post(
    '/accounts/:accountId/keys',
    {
      schema: {
        summary: 'Create a key for an account',
        params: AccountParams,
        body: z.nullish(CreateApiKeyRequest),
      },
      config: {
        docs: {
          success: { status: 201, example: { keyId: ID, apiKey: 'cis_…' } },
          throws: [UNKNOWN_ACCOUNT],
        },
      },
    },
    async (request, reply) => {
      const spec = request.body ?? { scope: 'full' as const };
      const { keyId, apiKey } = await admin.createKey(request.params.accountId, {
        label: spec.label ?? null,
        scope: spec.scope,
        projectIds: spec.projectIds ?? null,
      });
      return reply.code(201).header('cache-control', 'no-store').send({ keyId, apiKey });
    },
  );

  app.delete(
    '/keys/:keyId',
    {
      schema: { summary: 'Revoke a key (also when already revoked)', params: KeyParams },
      config: { docs: { success: { status: 204 }, throws: [new NotFound('key')] } },
    },
    async (request, reply) => {
      await admin.revokeKey(request.params.keyId);
      return reply.code(204).send();
    },
  );

  app.post(
    '/accounts/:accountId/projects',
    {
      schema: {
        summary: 'Create a project for an account',
        params: AccountParams,
        body: AdminCreateProjectRequest,
      },
      config: {
        invalid: createProjectErrorText,
        docs: {
          success: { status: 201, example: PROJECT },
          throws: [UNKNOWN_ACCOUNT, new Conflict('project-name-taken')],
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await admin.createProject(request.params.accountId, request.body.name)),
  );

  app.get(
    '/accounts/:accountId/projects',
    {
      schema: { summary: "List an account's projects", params: AccountParams },
      config: {
        docs: { success: { example: { projects: [PROJECT] } }, throws: [UNKNOWN_ACCOUNT] },
      },
    },
    async (request) => ({ projects: await admin.listProjects(request.params.accountId) }),
  );
};

/**
 * The admin API under /admin, registered only when ADMIN_TOKEN is set. Its token is compared in
 * constant time; unknown paths are 404 whoever asks.
 */
export async function adminArea(app: FastifyInstance, { token }: { token: string }) {
  const expected = digest(token);
  app.setNotFoundHandler(jsonNotFound);
  await app.register(async (authenticated) => {
    describeArea(authenticated, {
      tag: 'Admin',
      auth: 'admin',
      unauthorized: OwnError.adminUnauthorized,
      rateLimited: false,
    });
    authenticated.addHook('onRequest', async (request, reply) => {
      // An authentication scheme's name is case-insensitive (RFC 9110, section 11.1).
      const presented = BEARER.exec(request.headers.authorization ?? '')?.[1] ?? '';
      // Equal-length digests, compared in constant time: the token's length does not leak either.
      if (!timingSafeEqual(digest(presented), expected)) {
        return reply.code(401).send({ error: OwnError.adminUnauthorized });
      }
    });
    await authenticated.register(routes);
  });
}
