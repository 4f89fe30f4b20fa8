import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  type DisplayNameResponse,
  UpdateDisplayNameRequest,
  type UpdateDisplayNameResponse,
  updateDisplayNameErrorText,
} from '../../../../contract/account.js';
import {
  type ApiKeyList,
  CreateApiKeyRequest,
  type CreateApiKeyResponse,
  RevokeApiKeyRequest,
} from '../../../../contract/api-keys.js';
import { SpecError } from '../../../../contract/error-texts.js';
import { Areas, Paths } from '../../../../contract/paths.js';
import { within } from '../area.js';

/** E5 and the read-back of the display name. */
export const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  const { displayName, apiKeys } = app.services;
  // The key endpoints are authenticated like E6, with its 401 text.
  const keyRoute = { unauthorized: SpecError.unauthorizedStats };

  app.get(
    within(Areas.account, Paths.getApiKeys),
    { config: keyRoute },
    async (request): Promise<ApiKeyList> => ({
      keys: await apiKeys.list(request.account.accountId),
    }),
  );

  app.post(
    within(Areas.account, Paths.createApiKey),
    { schema: { body: CreateApiKeyRequest }, config: keyRoute },
    async (request, reply): Promise<CreateApiKeyResponse> => {
      const { label, scope, projectIds } = request.body;
      const created = await apiKeys.createKey(request.account.accountId, {
        label: label ?? null,
        scope,
        projectIds: projectIds ?? null,
      });
      // The key is in this answer and nowhere else: no cache may keep it.
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.post(
    within(Areas.account, Paths.revokeApiKey),
    { schema: { body: RevokeApiKeyRequest }, config: keyRoute },
    async (request) => {
      await apiKeys.revokeOwn(request.account.accountId, request.body.keyId);
      return { success: true };
    },
  );

  app.post(
    within(Areas.account, Paths.updateDisplayName),
    { schema: { body: UpdateDisplayNameRequest }, config: { invalid: updateDisplayNameErrorText } },
    async (request): Promise<UpdateDisplayNameResponse> =>
      displayName.update(request.account.accountId, request.body.display_name),
  );

  app.get(
    within(Areas.account, Paths.getDisplayName),
    async (request): Promise<DisplayNameResponse> => displayName.get(request.account.accountId),
  );
};
