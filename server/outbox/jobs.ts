import type { DiscordWebhookTarget } from '../contract/discord-webhook.js';

/** E7's chat notification; the message is built at delivery from these fields. */
export interface ChatNotificationJob {
  kind: 'chat-notification';
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

export type OutboxJob = ChatNotificationJob | RemoveAliasJob | UpsertContactJob;
