import { secondsToMs } from '../../contract/retry.js';
import type { OutboundHttp, ResponseHeaders } from '../outbound/outbound-http.js';
import type { ChatNotificationJob } from '../outbox/outbox-jobs.js';
import type { SecretBox } from '../outbox/secret-box.js';

/** Discord's documented embed limits (characters). */
export const DiscordLimits = {
  title: 256,
  description: 4096,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  total: 6000,
} as const;

/** Discord's blurple, for events that name no colour. */
export const DEFAULT_COLOR = 0x5865f2;

export interface DiscordEmbed {
  title: string;
  description?: string;
  color: number;
  timestamp: string;
  fields: { name: string; value: string; inline: boolean }[];
  footer: { text: string };
}

export interface DiscordMessage {
  embeds: [DiscordEmbed];
  /** Nothing in an event can ping @everyone, a role or a user. */
  allowed_mentions: { parse: [] };
}

/** Shortens `text` to `max` characters, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max - 1)}…`;
}

/**
 * The one embed of a notification: title, description (chatWebhook's, else the event's), colour
 * (chatWebhook's, else the event's, else blurple), the event time, and fields naming the project
 * and event type. Discord's limits are met by truncating, never by failing the event.
 */
export function buildDiscordMessage(job: ChatNotificationJob): DiscordMessage {
  const fields = [
    { name: 'Project', value: truncate(job.projectName, DiscordLimits.fieldValue), inline: true },
    { name: 'Event', value: truncate(job.eventType, DiscordLimits.fieldValue), inline: true },
  ];
  const footer = { text: truncate(`ci-stats · ${job.projectId}`, DiscordLimits.footer) };
  const title = truncate(job.title, DiscordLimits.title);
  const fixed =
    title.length +
    footer.text.length +
    fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
  const room = Math.min(DiscordLimits.description, DiscordLimits.total - fixed);
  const description = job.description?.trim() ? truncate(job.description, room) : undefined;
  return {
    embeds: [
      {
        title,
        ...(description === undefined ? {} : { description }),
        color: job.color ?? DEFAULT_COLOR,
        timestamp: job.eventCreatedAt,
        fields,
        footer,
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

/** Discord's own way of asking to wait: `retry_after` (seconds, fractional) in a 429's body. */
export function discordRetryAfter(body: unknown): number | undefined {
  return typeof body === 'object' && body !== null && 'retry_after' in body
    ? secondsToMs((body as { retry_after: unknown }).retry_after)
    : undefined;
}

const header = (headers: ResponseHeaders, name: string): number => {
  const value = headers[name];
  return Number(Array.isArray(value) ? value[0] : (value ?? Number.NaN));
};

/**
 * When a webhook may be called again, from Discord's answer: its bucket is empty
 * (`X-RateLimit-Remaining: 0`) until `X-RateLimit-Reset-After` seconds have passed, or a 429 said
 * how long to wait. Undefined: no need to wait.
 */
export function discordReadyAt(
  status: number,
  headers: ResponseHeaders,
  body: unknown,
  now: number,
): number | undefined {
  const waits: number[] = [];
  const resetAfter = header(headers, 'x-ratelimit-reset-after');
  if (header(headers, 'x-ratelimit-remaining') === 0 && resetAfter > 0) {
    waits.push(resetAfter * 1000);
  }
  if (status === 429) {
    const retryAfter = header(headers, 'retry-after');
    if (retryAfter > 0) waits.push(retryAfter * 1000);
    const told = discordRetryAfter(body);
    if (told !== undefined) waits.push(told);
  }
  return waits.length === 0 ? undefined : now + Math.ceil(Math.max(...waits));
}

/**
 * Executes the webhook. The request goes to the configured origin only, with the path and thread
 * of the validated URL rebuilt from its parsed parts, and `wait=true` so that a message Discord
 * refuses comes back as an error instead of vanishing. Each webhook's rate limit, as Discord's
 * answers state it, is remembered, so the worker can wait for it before sending the next message
 * to that webhook instead of earning a 429.
 */
export function discordNotifier(http: OutboundHttp, origin: string, secrets: SecretBox) {
  /** Webhook id -> epoch ms before which it must not be called. */
  const limited = new Map<string, number>();
  return {
    /** When a message to this job's webhook may be sent (0: now). */
    readyAt(job: ChatNotificationJob, now = Date.now()): number {
      const at = limited.get(job.webhook.webhookId);
      if (at === undefined) return 0;
      if (at > now) return at;
      limited.delete(job.webhook.webhookId);
      return 0;
    },

    async send(job: ChatNotificationJob): Promise<void> {
      const query = new URLSearchParams({ wait: 'true' });
      if (job.webhook.threadId) query.set('thread_id', job.webhook.threadId);
      const path = secrets.open(job.webhook.path, job.webhook.webhookId);
      const token = path.split('/').at(-1) ?? '';
      await http.send({
        method: 'POST',
        url: `${origin}${path}?${query}`,
        json: buildDiscordMessage(job),
        secrets: [token],
        service: 'Discord',
        retryAfter: (_headers, body) => discordRetryAfter(body),
        onAnswer: (status, headers, body) => {
          const at = discordReadyAt(status, headers, body, Date.now());
          if (at === undefined) limited.delete(job.webhook.webhookId);
          else limited.set(job.webhook.webhookId, at);
        },
      });
    },
  };
}

export type DiscordNotifier = ReturnType<typeof discordNotifier>;
