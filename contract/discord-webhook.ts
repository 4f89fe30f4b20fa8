/**
 * Strict parser for Discord webhook URLs. E7 accepts only URLs this returns a target for, and
 * delivery rebuilds the request from the target alone (never from the raw string), so nothing a
 * client writes can steer the server to another host, port, path or query (SSRF protection).
 */
export interface DiscordWebhookTarget {
  /** Path as validated, e.g. `/api/webhooks/123/abc` or `/api/v10/webhooks/123/abc`. */
  path: string;
  webhookId: string;
  /** Forum/thread target, digits only. */
  threadId?: string;
}

const HOSTS = new Set(['discord.com', 'ptb.discord.com', 'canary.discord.com', 'discordapp.com']);
const PATH = /^\/api(?:\/v\d{1,2})?\/webhooks\/(\d{1,20})\/([A-Za-z0-9_-]{1,100})$/;
const DIGITS = /^\d{1,20}$/;
const BOOLEAN = /^(?:true|false)$/;

export function parseDiscordWebhookUrl(raw: string): DiscordWebhookTarget | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  // No port but the default one: `URL` drops an explicit ":443", which is harmless since delivery
  // never uses the client's host or port (docs/decisions.md says the same).
  if (url.protocol !== 'https:' || !HOSTS.has(url.hostname) || url.port !== '') return undefined;
  if (url.username !== '' || url.password !== '' || url.hash !== '') return undefined;
  const match = PATH.exec(url.pathname);
  if (!match) return undefined;

  let threadId: string | undefined;
  const seen = new Set<string>();
  for (const [key, value] of url.searchParams) {
    if (seen.has(key)) return undefined;
    seen.add(key);
    if (key === 'thread_id' && DIGITS.test(value)) threadId = value;
    else if (key !== 'wait' || !BOOLEAN.test(value)) return undefined;
  }
  return { path: url.pathname, webhookId: match[1] as string, ...(threadId ? { threadId } : {}) };
}
