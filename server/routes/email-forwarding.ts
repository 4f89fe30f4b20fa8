import type { FastifyInstance } from 'fastify';
import { SpecError } from '../contract/errors.js';
import { requireApiKey } from '../plugins/auth.js';

/** E1 and E2. */
export default async function emailForwardingRoutes(app: FastifyInstance) {
  app.addHook('onRequest', requireApiKey(SpecError.unauthorizedForwarding));

  app.get('/email-forwarding/email-forwarding-status', async (request) =>
    app.services.forwarding.status(request.account.accountId),
  );

  app.post('/email-forwarding/email-forwarding-toggle', async (request) =>
    app.services.forwarding.toggle(request.account.accountId, request.body),
  );
}
