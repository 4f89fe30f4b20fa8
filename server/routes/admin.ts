import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { OwnError } from '../contract/errors.js';
import { isJsonObject } from '../contract/json.js';
import { adminService } from '../services/admin.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

interface AccountParams {
  accountId: string;
}

/** The admin API, registered only when ADMIN_TOKEN is set. */
export default async function adminRoutes(app: FastifyInstance, { token }: { token: string }) {
  const expected = digest(token);
  const admin = adminService(app.stores, (work) => app.commits.run(work), app.credentials.revoke);

  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    // Equal-length digests, compared in constant time: the token's length does not leak either.
    if (!timingSafeEqual(digest(presented), expected)) {
      return reply.code(401).send({ error: OwnError.adminUnauthorized });
    }
  });

  const field = (body: unknown, name: string) => (isJsonObject(body) ? body[name] : undefined);

  app.post('/admin/accounts', async (request, reply) =>
    reply.code(201).send(await admin.createAccount(field(request.body, 'label'))),
  );

  app.post<{ Params: AccountParams }>('/admin/accounts/:accountId/keys', async (request, reply) =>
    reply.code(201).send(await admin.createKey(request.params.accountId)),
  );

  app.delete<{ Params: { keyId: string } }>('/admin/keys/:keyId', async (request, reply) => {
    await admin.revokeKey(request.params.keyId);
    return reply.code(204).send();
  });

  app.post<{ Params: AccountParams }>(
    '/admin/accounts/:accountId/projects',
    async (request, reply) =>
      reply
        .code(201)
        .send(await admin.createProject(request.params.accountId, field(request.body, 'name'))),
  );

  app.get<{ Params: AccountParams }>('/admin/accounts/:accountId/projects', async (request) => ({
    projects: admin.listProjects(request.params.accountId),
  }));
}
