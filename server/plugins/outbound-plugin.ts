import fp from 'fastify-plugin';
import { OutboundHttp } from '../outbound/outbound-http.js';
import { brevoContacts } from '../providers/brevo.js';
import type { ContactsProvider } from '../providers/contacts-provider.js';
import { type DiscordNotifier, discordNotifier } from '../providers/discord.js';
import type { ForwardingProvider } from '../providers/forwarding-provider.js';
import { improvMxForwarding } from '../providers/improvmx.js';

/** The outside services the configuration selects; undefined means "none". */
export interface Providers {
  discord: DiscordNotifier;
  forwarding: ForwardingProvider | undefined;
  contacts: ContactsProvider | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    providers: Providers;
  }
}

/** Discord, ImprovMX and Brevo adapters over one outbound HTTP client (timeouts, no redirects). */
export const outboundPlugin = fp(
  async (app) => {
    const { forwarding, contacts, outbound } = app.config;
    const http = new OutboundHttp(outbound.timeoutMs);
    app.decorate('providers', {
      discord: discordNotifier(http, outbound.discordApiOrigin, app.secrets),
      forwarding:
        forwarding.provider === 'improvmx' ? improvMxForwarding(http, forwarding) : undefined,
      contacts: contacts.provider === 'brevo' ? brevoContacts(http, contacts) : undefined,
    });
    app.addHook('onClose', () => http.close());
  },
  { name: 'outbound', dependencies: ['secrets'], decorators: { fastify: ['config'] } },
);
