import fp from 'fastify-plugin';
import { createServices, type Services } from '../services/services.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

/** Every operation of the product, for the routes and pages to call. */
export const servicesPlugin = fp(
  async (app) => {
    const services = createServices(app.storage, {
      mailDomain: app.config.mailDomain,
      forwarding: app.providers.forwarding,
      contacts: app.providers.contacts !== undefined,
      log: app.logger,
      secrets: app.secrets,
      publicUrl: app.config.publicUrl,
      webhookAllowedHosts: app.config.outbound.webhookAllowedHosts,
      sendSample: (channel) => app.providers.channels.sample(channel),
      slackOAuth: app.providers.slackOAuth,
    });
    app.decorate('services', services);
    // Judging runs beside the requests once the app is ready, and stops before the storage closes.
    app.addHook('onReady', async () => services.judging.start());
    app.addHook('onClose', () => services.judging.stop());
    app.addHook('onReady', async () => services.testUpkeep.start());
    app.addHook('onClose', () => services.testUpkeep.stop());
    // Channels' digests are queued at their time, into the outbox, which sends them.
    app.addHook('onReady', async () => services.digests.start());
    app.addHook('onClose', () => services.digests.stop());
    // A storage use measurement under way ends before the storage closes.
    app.addHook('onClose', () => services.storageUse.settled());
  },
  { name: 'services', dependencies: ['storage', 'secrets', 'outbound'] },
);
