import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  type DisplayNameResponse,
  UpdateDisplayNameRequest,
  type UpdateDisplayNameResponse,
  updateDisplayNameErrorText,
} from '../../../../contract/account.js';
import { Areas, Paths } from '../../../../contract/paths.js';
import { within } from '../area.js';

/** E5 and the read-back of the display name. */
export const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  const { displayName } = app.services;

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
