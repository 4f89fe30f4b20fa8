import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  type ForwardingStatus,
  ToggleForwardingRequest,
  type ToggleForwardingResponse,
  toggleForwardingErrorText,
} from '../../../../contract/forwarding.js';
import { Areas, Paths } from '../../../../contract/paths.js';
import { NotFound, Unavailable } from '../../../domain/domain-errors.js';
import { within } from '../area.js';

/** E1 and E2. */
export const emailForwardingRoutes: FastifyPluginAsyncZod = async (app) => {
  const { forwarding } = app.services;

  app.get(
    within(Areas.forwarding, Paths.forwardingStatus),
    {
      schema: { summary: 'E1 Read forwarding status' },
      config: { docs: { success: { example: { enabled: true, email: 'me@example.com' } } } },
    },
    async (request): Promise<ForwardingStatus> => forwarding.status(request.account.accountId),
  );

  app.post(
    within(Areas.forwarding, Paths.forwardingToggle),
    {
      schema: { summary: 'E2 Enable or disable forwarding', body: ToggleForwardingRequest },
      config: {
        invalid: toggleForwardingErrorText,
        docs: {
          success: { example: { success: true } },
          throws: [new NotFound('profile'), new Unavailable('forwarding-provider')],
        },
      },
      // The spec judges a missing profile (404) before the body (400).
      attachValidation: true,
    },
    async (request): Promise<ToggleForwardingResponse> => {
      if (request.validationError) {
        await forwarding.requireProfile(request.account.accountId);
        throw request.validationError;
      }
      return forwarding.toggle(request.account.accountId, request.body);
    },
  );
};
