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
    app.decorate(
      'services',
      createServices(app.storage, {
        mailDomain: app.config.mailDomain,
        forwarding: app.providers.forwarding,
        contacts: app.providers.contacts !== undefined,
        log: app.logger,
        secrets: app.secrets,
        publicUrl: app.config.publicUrl,
        webhookAllowedHosts: app.config.outbound.webhookAllowedHosts,
        sendSample: (channel) => app.providers.channels.sample(channel),
      }),
    );
  },
  { name: 'services', dependencies: ['storage', 'secrets', 'outbound'] },
);
