import type { FastifyInstance } from 'fastify';
import { SpecError } from '../contract/errors.js';
import { requireApiKey } from '../plugins/auth.js';

/** E5 and the read-back of the display name. */
export default async function accountRoutes(app: FastifyInstance) {
  app.addHook('onRequest', requireApiKey(SpecError.unauthorizedSite));

  app.post('/account/update-display-name', async (request) =>
    app.services.displayName.update(request.account.accountId, request.body),
  );

  app.get('/account/get-display-name', async (request) =>
    app.services.displayName.get(request.account.accountId),
  );
}
