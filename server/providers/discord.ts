import { secondsToMs } from '../../contract/retry.js';
import type { OutboundHttp } from '../outbound/outbound-http.js';
import type { ChatNotificationJob } from '../outbox/outbox-jobs.js';

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

/**
 * Executes the webhook. The request goes to the configured origin only, with the path and thread
 * of the validated URL rebuilt from its parsed parts, and `wait=true` so that a message Discord
 * refuses comes back as an error instead of vanishing.
 */
export function discordNotifier(http: OutboundHttp, origin: string) {
  return {
    async send(job: ChatNotificationJob): Promise<void> {
      const query = new URLSearchParams({ wait: 'true' });
      if (job.webhook.threadId) query.set('thread_id', job.webhook.threadId);
      const token = job.webhook.path.split('/').at(-1) ?? '';
      await http.send({
        method: 'POST',
        url: `${origin}${job.webhook.path}?${query}`,
        json: buildDiscordMessage(job),
        secrets: [token],
        service: 'Discord',
        retryAfter: (_headers, body) => discordRetryAfter(body),
      });
    },
  };
}

export type DiscordNotifier = ReturnType<typeof discordNotifier>;
