import * as z from 'zod/mini';
import { parseDiscordWebhookUrl } from './discord-webhook.js';
import { color, jsonObject, requiredText, text } from './fields.js';
import { Limits } from './limits.js';
import { noNul } from './text-rule.js';

/** E7 `chatWebhook`: where and what to notify when the event is stored. */
export const ChatWebhook = z.strictObject({
  url: z.string().check(
    z.maxLength(Limits.webhookUrlLength),
    noNul,
    z.refine((url) => parseDiscordWebhookUrl(url) !== undefined, {
      message: 'must be a Discord webhook URL: https://discord.com/api/webhooks/<id>/<token>',
    }),
  ),
  title: requiredText(Limits.webhookTitleLength),
  description: z.optional(text(Limits.webhookDescriptionLength)),
  color: z.optional(color),
});
export type ChatWebhook = z.infer<typeof ChatWebhook>;

/**
 * E7 POST /stats/ingest-events request body (spec 2.4). `discordWebhook` is the hosted service's
 * own clients' name for `chatWebhook`: either is accepted, both at once is 400.
 */
export const IngestEventRequest = z
  .strictObject({
    projectId: requiredText(Limits.projectIdLength),
    eventType: requiredText(Limits.eventTypeLength),
    description: z.optional(text(Limits.descriptionLength)),
    payload: z.optional(jsonObject),
    color: z.optional(color),
    chatWebhook: z.optional(ChatWebhook),
    discordWebhook: z.optional(ChatWebhook),
  })
  .check(
    z.refine((event) => event.chatWebhook === undefined || event.discordWebhook === undefined, {
      path: ['discordWebhook'],
      message: 'another name for chatWebhook: send only one of the two',
    }),
  );
export type IngestEventRequest = z.infer<typeof IngestEventRequest>;

/** E7 200 response body. */
export const IngestEventResponse = z.object({ message: z.string(), id: z.string() });
export type IngestEventResponse = z.infer<typeof IngestEventResponse>;

export const EVENT_CREATED = 'Event created successfully.';
