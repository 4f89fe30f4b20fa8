import { parseDiscordWebhookUrl } from './discord-webhook.js';

/**
 * Where a channel posts, parsed strictly from the URL its owner pasted, per platform. Delivery
 * rebuilds each request from these parts (never from the raw string), so a channel can only ever
 * reach its platform's own hosts over HTTPS (SSRF protection); a generic webhook may name any
 * host, and its address is checked when the connection is made (server/outbound/public-address.ts).
 */
export type ChannelKind = 'discord' | 'slack' | 'slack-app' | 'teams' | 'webhook';

export const CHANNEL_KINDS = ['discord', 'slack', 'slack-app', 'teams', 'webhook'] as const;

export interface ChannelTarget {
  kind: ChannelKind;
  /** The URL as delivery uses it (the secret part included: stored only sealed). */
  url: string;
  /** What may be shown of it: the host and the start of the path, never a token. */
  hint: string;
}

/** Slack incoming webhooks: `https://hooks.slack.com/services/T…/B…/<secret>`. */
const SLACK_HOSTS = new Set(['hooks.slack.com', 'hooks.slack-gov.com']);
const SLACK_PATH = /^\/services\/[A-Z0-9]{1,30}\/[A-Z0-9]{1,30}\/[A-Za-z0-9]{1,100}$/;

/**
 * A Slack app's channel: the channel's link as Slack's "Copy link" gives it,
 * `https://<workspace>.slack.com/archives/<channel id>`; messages are sent with the app's bot
 * token (given apart) through Slack's Web API, which can edit them.
 */
const SLACK_ARCHIVES = /^\/archives\/([CGD][A-Z0-9]{4,30})\/?$/;

function parseSlackApp(raw: string): ChannelTarget | undefined {
  const url = parsed(raw);
  if (url?.protocol !== 'https:' || url.port !== '' || url.search !== '') return undefined;
  if (!/^[a-z0-9-]{1,60}\.(?:enterprise\.)?slack\.com$/.test(url.hostname)) return undefined;
  const channel = SLACK_ARCHIVES.exec(url.pathname)?.[1];
  if (!channel) return undefined;
  const link = `https://${url.hostname}/archives/${channel}`;
  return { kind: 'slack-app', url: link, hint: `${url.hostname}/archives/${channel}` };
}

/** The Slack channel id of a Slack app channel's stored link. */
export const slackChannelOf = (link: string): string | undefined =>
  SLACK_ARCHIVES.exec(new URL(link).pathname)?.[1];

/**
 * Microsoft Teams: a Workflows ("When a Teams webhook request is received") URL on Power
 * Automate's hosts, or a legacy Office 365 connector URL; the query holds the signature.
 */
const TEAMS_HOST_SUFFIXES = [
  '.logic.azure.com',
  '.environment.api.powerplatform.com',
  '.webhook.office.com',
];

function parsed(raw: string): URL | undefined {
  try {
    const url = new URL(raw);
    if (url.username !== '' || url.password !== '' || url.hash !== '') return undefined;
    return url;
  } catch {
    return undefined;
  }
}

function parseSlack(raw: string): ChannelTarget | undefined {
  const url = parsed(raw);
  if (url?.protocol !== 'https:' || url.port !== '' || url.search !== '') return undefined;
  if (!SLACK_HOSTS.has(url.hostname) || !SLACK_PATH.test(url.pathname)) return undefined;
  const [, , team = '', bot = ''] = url.pathname.split('/');
  return { kind: 'slack', url: url.href, hint: `${url.hostname}/services/${team}/${bot}/…` };
}

function parseTeams(raw: string): ChannelTarget | undefined {
  const url = parsed(raw);
  if (url?.protocol !== 'https:' || url.port !== '') return undefined;
  if (!TEAMS_HOST_SUFFIXES.some((suffix) => url.hostname.endsWith(suffix))) return undefined;
  if (url.pathname.length < 2) return undefined;
  return { kind: 'teams', url: url.href, hint: `${url.hostname}/…` };
}

function parseDiscord(raw: string): ChannelTarget | undefined {
  const target = parseDiscordWebhookUrl(raw);
  if (!target) return undefined;
  const query = target.threadId ? `?thread_id=${target.threadId}` : '';
  return {
    kind: 'discord',
    url: `https://discord.com${target.path}${query}`,
    hint: `discord.com/api/webhooks/${target.webhookId}/…`,
  };
}

/**
 * A generic receiver: any HTTPS URL (HTTP only for a host the operator allow-listed), on the
 * default port or an explicit one; the host's addresses are judged at connection time.
 */
function parseWebhook(raw: string, allowedHosts: readonly string[]): ChannelTarget | undefined {
  const url = parsed(raw);
  if (!url || url.hostname === '') return undefined;
  const allowed = allowedHosts.includes(url.host) || allowedHosts.includes(url.hostname);
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:')) return undefined;
  return { kind: 'webhook', url: url.href, hint: `${url.host}/…` };
}

/** The target of `raw` for a channel of `kind`, or undefined when it is not one. */
export function parseChannelTarget(
  kind: ChannelKind,
  raw: string,
  allowedHosts: readonly string[] = [],
): ChannelTarget | undefined {
  if (raw.trim() !== raw) return undefined;
  switch (kind) {
    case 'discord':
      return parseDiscord(raw);
    case 'slack':
      return parseSlack(raw);
    case 'slack-app':
      return parseSlackApp(raw);
    case 'teams':
      return parseTeams(raw);
    case 'webhook':
      return parseWebhook(raw, allowedHosts);
  }
}
