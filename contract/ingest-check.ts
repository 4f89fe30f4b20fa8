import { parseDiscordWebhookUrl } from './discord-webhook.js';
import { isJsonObject } from './json.js';
import { Limits } from './limits.js';
import { holdsNul } from './nul.js';
import { isPayload } from './payload.js';

/**
 * A zod-free check of the E7/E8 bodies and answers the reporters build and read, so that their
 * start-up does not evaluate zod (about a tenth of a reporting step). It only ever says yes where
 * the schemas in events.ts and metrics.ts say yes and give back the same JSON: fields in the
 * schema's order, no unknown or undefined field, every rule of the schema. Anything else, even a
 * body the schema would accept, gets "no", and the caller asks the schema itself, whose verdict
 * and error are the ones that count. test/reporter/ingest-check.test.ts holds it to that.
 *
 * The server asks it first too, `inAnyOrder` (http/api/body-validator.ts): a body it accepts is
 * the one zod would give back but for the order of its top-level fields, which nothing after
 * validation reads, and zod's object parse took a tenth of an E7's time on the event loop.
 */

/**
 * Whether the keys of `value` are some of `order`, in that order (or in any, `inAnyOrder`), none
 * of them undefined.
 */
function keysIn(value: Record<string, unknown>, order: readonly string[], inAnyOrder: boolean) {
  if (inAnyOrder) {
    for (const key of Object.keys(value)) {
      if (!order.includes(key) || value[key] === undefined) return false;
    }
    return true;
  }
  let at = 0;
  for (const key of Object.keys(value)) {
    while (at < order.length && order[at] !== key) at++;
    if (at === order.length || value[key] === undefined) return false;
    at++;
  }
  return true;
}

const isText = (value: unknown, min: number, max: number): boolean =>
  typeof value === 'string' && value.length >= min && value.length <= max && !holdsNul(value);

const isColor = (value: unknown): boolean =>
  Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= Limits.maxColor;

const has = (body: Record<string, unknown>, key: string) => Object.hasOwn(body, key);

const CHAT_WEBHOOK = ['url', 'title', 'description', 'color'] as const;

function isChatWebhook(value: unknown, inAnyOrder: boolean): boolean {
  return (
    isJsonObject(value) &&
    keysIn(value, CHAT_WEBHOOK, inAnyOrder) &&
    isText(value.url, 0, Limits.webhookUrlLength) &&
    parseDiscordWebhookUrl(value.url as string) !== undefined &&
    isText(value.title, 1, Limits.webhookTitleLength) &&
    (!has(value, 'description') || isText(value.description, 0, Limits.webhookDescriptionLength)) &&
    (!has(value, 'color') || isColor(value.color))
  );
}

/** `chatWebhook` only: the hosted service's `discordWebhook` is left to the schema. */
const EVENT = ['projectId', 'eventType', 'description', 'payload', 'color', 'chatWebhook'] as const;

/**
 * True only if IngestEventRequest accepts `body` and parses it to the same JSON (`inAnyOrder`: to
 * the same fields and values, which the schema gives back in its own order).
 */
export function quickIngestEvent(body: unknown, inAnyOrder = false): boolean {
  return (
    isJsonObject(body) &&
    keysIn(body, EVENT, inAnyOrder) &&
    isText(body.projectId, 1, Limits.projectIdLength) &&
    isText(body.eventType, 1, Limits.eventTypeLength) &&
    (!has(body, 'description') || isText(body.description, 0, Limits.descriptionLength)) &&
    (!has(body, 'payload') || isPayload(body.payload)) &&
    (!has(body, 'color') || isColor(body.color)) &&
    (!has(body, 'chatWebhook') || isChatWebhook(body.chatWebhook, inAnyOrder))
  );
}

const METRIC = ['projectId', 'payload'] as const;

/** True only if IngestMetricRequest accepts `body` and parses it to the same JSON (or as above). */
export function quickIngestMetric(body: unknown, inAnyOrder = false): boolean {
  return (
    isJsonObject(body) &&
    keysIn(body, METRIC, inAnyOrder) &&
    isText(body.projectId, 1, Limits.projectIdLength) &&
    isPayload(body.payload)
  );
}

/**
 * An E7/E8 2xx answer as IngestEventResponse and IngestMetricResponse parse it (`{ message, id }`,
 * other fields dropped), or undefined where they refuse it.
 */
export function quickIngestAnswer(body: unknown): { message: string; id: string } | undefined {
  if (!isJsonObject(body) || typeof body.message !== 'string' || typeof body.id !== 'string') {
    return undefined;
  }
  return { message: body.message, id: body.id };
}
