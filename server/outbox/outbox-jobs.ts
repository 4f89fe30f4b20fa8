import {
  type DiscordWebhookTarget,
  parseDiscordWebhookUrl,
} from '../../contract/discord-webhook.js';
import type { IngestEventRequest } from '../../contract/events.js';
import type { EventSummary } from '../domain/channels/event-summary.js';
import { isSealed, type SecretBox } from './secret-box.js';

/** E7's chat notification; the message is built at delivery from these fields. */
export interface ChatNotificationJob {
  kind: 'chat-notification';
  /** Its `path` holds the token: sealed (secret-box.ts) when SECRETS_KEY is set. */
  webhook: DiscordWebhookTarget;
  title: string;
  description: string | null;
  color: number | null;
  projectId: string;
  projectName: string;
  eventType: string;
  eventCreatedAt: string;
}

/** E5 renamed an account while forwarding was on: the old alias must go at the provider. */
export interface RemoveAliasJob {
  kind: 'forwarding-remove-alias';
  /** The local part, i.e. the old display name. */
  alias: string;
}

/** E2 enabled forwarding: the contact is upserted at the contacts provider. */
export interface UpsertContactJob {
  kind: 'contacts-upsert';
  /** The forwarding address. */
  email: string;
  /** The full alias address. */
  alias: string;
}

/**
 * A message to one of the project's channels (issue 30). It holds no secret: the channel's URL
 * stays sealed in its row and is opened only to send, so a deleted channel is never sent to.
 */
export interface ChannelMessageJob {
  kind: 'channel-message';
  channelId: string;
  messageId: string;
  event: EventSummary;
}

/**
 * Judging found new facts on a run's metric records (its duration against the base, its
 * regressions; issue 30), or the test results sent for a build's event were judged: the run's
 * messages on the channel are sent again with them, edited where the platform can edit. Queued
 * in the channel's lane, behind the run's build message.
 */
export interface ChannelRunUpdateJob {
  kind: 'channel-run-update';
  channelId: string;
  projectId: string;
  /** The run without its event type (RunIdentity's `ref`): its messages, for new facts. */
  runRef?: string;
  /** The build's event: the messages last sent for it, for its test results. */
  eventId?: string;
  /**
   * The build and attempt (JSON `["<build id>", attempt]`) test results were sent for without
   * an event: the messages last sent for that build and attempt.
   */
  buildKey?: string;
  /**
   * The base of the messages' ids, the same on every retry (a generic webhook's run keeps the
   * `webhook-id` of its first message instead).
   */
  messageId: string;
}

/**
 * A channel's digest for the period ending at `dueAt` (issue 30): its figures are read when it
 * is sent, from the events of that period and the one before, with the channel's rules then.
 */
export interface ChannelDigestJob {
  kind: 'channel-digest';
  channelId: string;
  messageId: string;
  dueAt: number;
}

/**
 * Test results were stored for a project one of whose channels hears of newly flaky tests
 * (issue 30): which tests became flaky is judged off the ingest path, and announced.
 */
export interface FlakyCheckJob {
  kind: 'flaky-check';
  projectId: string;
}

/**
 * Test results were stored for a build's event (ingest-tests' `eventId`), or for a build and
 * attempt without one (`buildKey`, JSON `["<build id>", attempt]`), in a project one of whose
 * channels hears of builds (issue 30): the run's tests are judged off the ingest path (its new
 * and known flaky failures) and its messages updated.
 */
export interface RunTestsJob {
  kind: 'run-tests';
  projectId: string;
  eventId?: string;
  buildKey?: string;
}

export type OutboxJob =
  | FlakyCheckJob
  | RunTestsJob
  | ChatNotificationJob
  | RemoveAliasJob
  | UpsertContactJob
  | ChannelMessageJob
  | ChannelRunUpdateJob
  | ChannelDigestJob;

/**
 * The notification an event asks for, if any: the chatWebhook's description and colour, else
 * the event's. Only a URL the contract accepted gets here, so it always parses.
 */
export function chatNotification(
  event: IngestEventRequest,
  projectName: string,
  createdAt: number,
  secrets: SecretBox,
): ChatNotificationJob | undefined {
  const chat = event.chatWebhook;
  const webhook = chat && parseDiscordWebhookUrl(chat.url);
  if (!chat || !webhook) return undefined;
  return {
    kind: 'chat-notification',
    webhook: { ...webhook, path: secrets.seal(webhook.path, webhook.webhookId) },
    title: chat.title,
    description: chat.description ?? event.description ?? null,
    color: chat.color ?? event.color ?? null,
    projectId: event.projectId,
    projectName,
    eventType: event.eventType,
    eventCreatedAt: new Date(createdAt).toISOString(),
  };
}

/** Whether a stored job's payload holds a sealed secret. */
export function holdsSealedSecret(payload: string): boolean {
  const job = JSON.parse(payload) as OutboxJob;
  return job.kind === 'chat-notification' && isSealed(job.webhook.path);
}

/**
 * A stored job's payload with its webhook token sealed, or undefined when it holds nothing to
 * seal: for the jobs a server stored before it had a key.
 */
export function sealedPayload(payload: string, secrets: SecretBox): string | undefined {
  const job = JSON.parse(payload) as OutboxJob;
  if (job.kind !== 'chat-notification' || isSealed(job.webhook.path)) return undefined;
  const path = secrets.seal(job.webhook.path, job.webhook.webhookId);
  return JSON.stringify({ ...job, webhook: { ...job.webhook, path } });
}
