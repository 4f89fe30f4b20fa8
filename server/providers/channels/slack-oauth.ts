import { DeliveryError } from '../../outbound/delivery-error.js';
import type { OutboundHttp } from '../../outbound/outbound-http.js';

/**
 * What "Add to Slack" asks for: `chat:write` to post and edit the app's own messages,
 * `chat:write.public` to post in a public channel the bot was not invited to, and
 * `incoming-webhook`, whose only use here is the channel picker Slack then shows during the
 * installation: its answer names the channel chosen (docs/decisions.md).
 */
export const SLACK_SCOPES = 'chat:write,chat:write.public,incoming-webhook';

/** What an installation gave: the bot token and the channel picked during it. */
export interface SlackInstallation {
  token: string;
  teamName: string;
  channelId: string;
  /** `#builds`, as Slack names it. */
  channelName: string;
  /** The workspace's host (`acme.slack.com`), from the webhook's configuration URL, if given. */
  workspaceHost: string | undefined;
}

/** Slack refused the code exchange (`ok: false`), or answered something unusable. */
export class SlackOAuthRefused extends Error {
  constructor(readonly code: string) {
    super(`Slack answered ${code}`);
  }
}

const CHANNEL_ID = /^[CGD][A-Z0-9]{4,30}$/;
const WORKSPACE_HOST = /^[a-z0-9-]{1,60}\.(?:enterprise\.)?slack\.com$/;

const text = (value: unknown, max: number): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;

function hostOf(url: unknown): string | undefined {
  try {
    const host = new URL(String(url)).hostname;
    return WORKSPACE_HOST.test(host) ? host : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Slack's OAuth v2 for the operator's app: the authorize address the browser is sent to, and the
 * exchange of the code Slack sends back for a bot token (`POST /api/oauth.v2.access`,
 * form-encoded, with the app's client id and secret), over the outbound client (timeouts, no
 * redirects, the secret redacted from every error).
 */
export function slackOAuth(
  http: OutboundHttp,
  { origin, clientId, clientSecret }: { origin: string; clientId: string; clientSecret: string },
) {
  return {
    authorizeUrl(state: string, redirectUri: string): string {
      const query = new URLSearchParams({
        client_id: clientId,
        scope: SLACK_SCOPES,
        redirect_uri: redirectUri,
        state,
      });
      return `${origin}/oauth/v2/authorize?${query}`;
    },

    async exchange(code: string, redirectUri: string): Promise<SlackInstallation> {
      let body: Record<string, unknown>;
      try {
        const answer = await http.send({
          method: 'POST',
          url: `${origin}/api/oauth.v2.access`,
          form: {
            client_id: clientId,
            client_secret: clientSecret,
            code,
            redirect_uri: redirectUri,
          },
          secrets: [clientSecret, code],
          service: 'Slack',
        });
        body = (answer.body ?? {}) as Record<string, unknown>;
      } catch (error) {
        // Said without the answer's text: the page shows the code, nothing Slack sent beside it.
        if (error instanceof DeliveryError) {
          throw new SlackOAuthRefused(error.status ? `HTTP ${error.status}` : 'nothing in time');
        }
        throw error;
      }
      if (body.ok !== true) {
        throw new SlackOAuthRefused(text(body.error, 100) ?? 'no ok in its answer');
      }
      const webhook = (body.incoming_webhook ?? {}) as Record<string, unknown>;
      const team = (body.team ?? {}) as Record<string, unknown>;
      const token = text(body.access_token, 255);
      const channelId = text(webhook.channel_id, 40);
      if (!token?.startsWith('xoxb-') || body.token_type !== 'bot') {
        throw new SlackOAuthRefused('no bot token in its answer');
      }
      if (!channelId || !CHANNEL_ID.test(channelId)) {
        throw new SlackOAuthRefused('no channel in its answer');
      }
      return {
        token,
        teamName: text(team.name, 100) ?? 'Slack',
        channelId,
        channelName: text(webhook.channel, 100) ?? channelId,
        workspaceHost: hostOf(webhook.configuration_url),
      };
    },
  };
}

export type SlackOAuth = ReturnType<typeof slackOAuth>;
