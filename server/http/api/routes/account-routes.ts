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
import { Conflict, Forbidden, Invalid, NotFound } from '../../../domain/domain-errors.js';
import { within } from '../area.js';
import { AT, ID } from '../examples.js';

/** E5 and the read-back of the display name. */
export const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  const { displayName, apiKeys } = app.services;
  // The key endpoints are authenticated like E6, with its 401 text.
  const unauthorized = SpecError.unauthorizedStats;

  app.get(
    within(Areas.account, Paths.getApiKeys),
    {
      schema: { summary: "List the account's API keys (never a key or its hash)" },
      config: {
        unauthorized,
        docs: {
          success: {
            example: {
              keys: [
                {
                  id: ID,
                  label: 'ci',
                  prefix: 'cis_AbCd',
                  scope: 'ingest',
                  projectIds: null,
                  created_at: AT,
                  last_used_at: null,
                },
              ],
            },
          },
        },
      },
    },
    async (request): Promise<ApiKeyList> => ({
      keys: await apiKeys.list(request.account.accountId),
    }),
  );

  app.post(
    within(Areas.account, Paths.createApiKey),
    {
      schema: { summary: 'Create an API key (shown once)', body: CreateApiKeyRequest },
      config: {
        unauthorized,
        docs: {
          success: {
            status: 201,
            example: { keyId: ID, apiKey: 'cis_…', label: 'ci', scope: 'ingest', projectIds: null },
          },
          throws: [new Forbidden('project')],
        },
      },
    },
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
    {
      schema: { summary: 'Revoke one of your API keys', body: RevokeApiKeyRequest },
      config: {
        unauthorized,
        docs: { success: { example: { success: true } }, throws: [new NotFound('api-key')] },
      },
    },
    async (request) => {
      await apiKeys.revokeOwn(request.account.accountId, request.body.keyId);
      return { success: true };
    },
  );

  app.post(
    within(Areas.account, Paths.updateDisplayName),
    {
      schema: { summary: 'E5 Set the display name', body: UpdateDisplayNameRequest },
      config: {
        invalid: updateDisplayNameErrorText,
        docs: {
          success: {
            example: { success: true, display_name: 'alice', alias: 'alice@example.com' },
          },
          throws: [
            new Invalid('display-name-length'),
            new Invalid('display-name-reserved'),
            new Conflict('display-name-taken'),
          ],
        },
      },
    },
    async (request): Promise<UpdateDisplayNameResponse> =>
      displayName.update(request.account.accountId, request.body.display_name),
  );

  app.get(
    within(Areas.account, Paths.getDisplayName),
    {
      schema: { summary: 'Read the display name and alias' },
      config: {
        docs: { success: { example: { display_name: 'alice', alias: 'alice@example.com' } } },
      },
    },
    async (request): Promise<DisplayNameResponse> => displayName.get(request.account.accountId),
  );
};
