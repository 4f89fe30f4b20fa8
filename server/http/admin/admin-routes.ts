import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AccountParams,
  CreateAccountRequest,
  CreateProjectRequest,
  createAccountErrorText,
  createProjectErrorText,
  KeyParams,
} from '../../../contract/admin.js';
import { OwnError } from '../../../contract/error-texts.js';
import { jsonNotFound } from '../api/error-handler.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

const routes: FastifyPluginAsyncZod = async (app) => {
  const { admin } = app.services;

  app.post(
    '/accounts',
    { schema: { body: CreateAccountRequest }, config: { invalid: createAccountErrorText } },
    async (request, reply) =>
      reply.code(201).send(await admin.createAccount(request.body?.label ?? undefined)),
  );

  app.post(
    '/accounts/:accountId/keys',
    { schema: { params: AccountParams } },
    async (request, reply) => reply.code(201).send(await admin.createKey(request.params.accountId)),
  );

  app.delete('/keys/:keyId', { schema: { params: KeyParams } }, async (request, reply) => {
    await admin.revokeKey(request.params.keyId);
    return reply.code(204).send();
  });

  app.post(
    '/accounts/:accountId/projects',
    {
      schema: { params: AccountParams, body: CreateProjectRequest },
      config: { invalid: createProjectErrorText },
    },
    async (request, reply) =>
      reply.code(201).send(await admin.createProject(request.params.accountId, request.body.name)),
  );

  app.get(
    '/accounts/:accountId/projects',
    { schema: { params: AccountParams } },
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
    authenticated.addHook('onRequest', async (request, reply) => {
      const header = request.headers.authorization ?? '';
      const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
      // Equal-length digests, compared in constant time: the token's length does not leak either.
      if (!timingSafeEqual(digest(presented), expected)) {
        return reply.code(401).send({ error: OwnError.adminUnauthorized });
      }
    });
    await authenticated.register(routes);
  });
}
