import fp from 'fastify-plugin';
import { OutboundHttp } from '../outbound/outbound-http.js';
import { publicOnlyLookup } from '../outbound/public-address.js';
import { brevoContacts } from '../providers/brevo.js';
import { type ChannelSender, channelSender } from '../providers/channels/channel-sender.js';
import { type SlackOAuth, slackOAuth } from '../providers/channels/slack-oauth.js';
import type { ContactsProvider } from '../providers/contacts-provider.js';
import { type DiscordNotifier, discordNotifier } from '../providers/discord.js';
import type { ForwardingProvider } from '../providers/forwarding-provider.js';
import { improvMxForwarding } from '../providers/improvmx.js';

/** The outside services the configuration selects; undefined means "none". */
export interface Providers {
  discord: DiscordNotifier;
  forwarding: ForwardingProvider | undefined;
  contacts: ContactsProvider | undefined;
  /** Messages to projects' notification channels (issue 30). */
  channels: ChannelSender;
  /** The operator's Slack app's installation (SLACK_CLIENT_ID); undefined: none. */
  slackOAuth: SlackOAuth | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    providers: Providers;
  }
}

/** Discord, ImprovMX and Brevo adapters over one outbound HTTP client (timeouts, no redirects). */
export const outboundPlugin = fp(
  async (app) => {
    const { forwarding, contacts, outbound, slackApp } = app.config;
    const http = new OutboundHttp(outbound.timeoutMs);
    // Generic webhooks name any host: their connections go to public addresses only.
    const webhookHttp = new OutboundHttp(outbound.timeoutMs, {
      lookup: publicOnlyLookup(outbound.webhookAllowedHosts),
    });
    app.decorate('providers', {
      discord: discordNotifier(http, outbound.discordApiOrigin, app.secrets),
      forwarding:
        forwarding.provider === 'improvmx' ? improvMxForwarding(http, forwarding) : undefined,
      contacts: contacts.provider === 'brevo' ? brevoContacts(http, contacts) : undefined,
      channels: channelSender({
        http,
        webhookHttp,
        storage: app.storage,
        secrets: app.secrets,
        discordOrigin: outbound.discordApiOrigin,
        slackOrigin: outbound.slackWebhookOrigin,
        slackApiOrigin: outbound.slackApiOrigin,
        teamsOrigin: outbound.teamsWebhookOrigin,
        allowedHosts: outbound.webhookAllowedHosts,
        publicUrl: app.config.publicUrl,
      }),
      slackOAuth: slackApp && slackOAuth(http, { origin: outbound.slackApiOrigin, ...slackApp }),
    });
    app.addHook('onClose', async () => {
      await Promise.all([http.close(), webhookHttp.close()]);
    });
  },
  {
    name: 'outbound',
    dependencies: ['storage', 'secrets'],
    decorators: { fastify: ['config'] },
  },
);
