import * as z from 'zod/mini';
import { CHANNEL_KINDS, type ChannelKind } from './channel-targets.js';
import { requiredText } from './fields.js';
import { Limits } from './limits.js';
import { noNul } from './text-rule.js';

/**
 * A project's notification channels (issue 30): where messages go (a Discord, Slack or Teams
 * webhook, or a generic receiver signed per Standard Webhooks) and which events they hear of.
 */

/**
 * Which events a channel hears of: `builds` every build, `failures` failed builds only,
 * `changes` a build whose status differs from the previous build's on its branch (broken and
 * fixed), `releases` release and deploy events, `alerts` the regression alerts the verdicts raise on
 * the default branch (issue 23), `flaky` the tests that became flaky with a run's results (issue 25's
 * flakiness). A build matching any listed choice is sent once.
 */
export const NOTIFY_CHOICES = [
  'builds',
  'failures',
  'changes',
  'releases',
  'alerts',
  'flaky',
] as const;
export type NotifyChoice = (typeof NOTIFY_CHOICES)[number];

export const ChannelLimits = {
  name: 100,
  globs: 20,
  globLength: 200,
  eventTypes: 20,
  mention: 100,
  channelsPerProject: 20,
} as const;

/**
 * Who a failure mentions, in the platform's own syntax: a Discord role `<@&id>` or user
 * `<@id>`, a Slack user group `<!subteam^ID>`, `<!here>` or a user `<@U…>`. Only on failures.
 */
const MENTION =
  /^(?:<@&?\d{1,20}>|<!subteam\^[A-Z0-9]{1,30}>|<!here>|<!channel>|<@[A-Z0-9]{1,30}>)$/;

/** How often a digest comes (weekly: on Mondays), and at what time of day, UTC (`HH:MM`). */
export const DIGEST_PERIODS = ['day', 'week'] as const;
export const Digest = z.strictObject({
  every: z.enum(DIGEST_PERIODS),
  at: z.string().check(z.regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, { message: 'must be HH:MM (UTC)' })),
});
export type Digest = z.infer<typeof Digest>;

export const ChannelRules = z
  .strictObject({
    /** Empty only beside a digest: the digest instead of single messages. */
    notify: z.array(z.enum(NOTIFY_CHOICES)).check(z.maxLength(NOTIFY_CHOICES.length)),
    /** Branch globs (`main`, `release/*`); empty: every branch, and events without one. */
    branches: z.optional(
      z.array(requiredText(ChannelLimits.globLength)).check(z.maxLength(ChannelLimits.globs)),
    ),
    /** Event types (`build`, `deploy`); empty: every type. */
    eventTypes: z.optional(
      z.array(requiredText(Limits.eventTypeLength)).check(z.maxLength(ChannelLimits.eventTypes)),
    ),
    mention: z.optional(
      z.nullable(
        z.string().check(
          noNul,
          z.regex(MENTION, {
            message:
              'must be a Discord <@&role> or <@user>, or a Slack <!subteam^ID>, <!here> or <@user>',
          }),
        ),
      ),
    ),
    /** A daily or weekly digest of the project, beside (or, with `notify` empty, instead of) single messages. */
    digest: z.optional(Digest),
  })
  .check(
    z.refine((rules) => rules.notify.length > 0 || rules.digest !== undefined, {
      path: ['notify'],
      message: 'must name at least one choice, unless the channel has a digest',
    }),
  );
export type ChannelRules = z.infer<typeof ChannelRules>;

const kind = z.enum(CHANNEL_KINDS);
const webhookUrl = z.string().check(z.minLength(1), z.maxLength(Limits.webhookUrlLength), noNul);

/**
 * A Slack app's bot token (`xoxb-…`, OAuth & Permissions in the app's settings, with the
 * `chat:write` scope): a `slack-app` channel's only, sealed at once and never shown again.
 */
const botToken = z
  .string()
  .check(
    z.maxLength(255),
    z.regex(/^xoxb-[A-Za-z0-9-]{10,250}$/, { message: 'must be a Slack bot token (xoxb-…)' }),
  );

/**
 * A Discord thread (or forum post) to post in: its id, a Discord snowflake (17 to 20 digits,
 * the thread's "Copy ID"); the webhook must belong to the thread's channel.
 */
export const DiscordThreadId = z
  .string()
  .check(z.regex(/^\d{17,20}$/, { message: 'must be a Discord thread id (17 to 20 digits)' }));

/** POST /stats/create-channel. */
export const CreateChannelRequest = z
  .strictObject({
    projectId: requiredText(Limits.projectIdLength),
    kind,
    name: requiredText(ChannelLimits.name),
    url: webhookUrl,
    rules: ChannelRules,
    /** A `slack-app` channel's bot token: required for that kind, refused for the others. */
    token: z.optional(botToken),
    /** A `discord` channel's thread: every message and edit goes there (`?thread_id=`). */
    thread_id: z.optional(DiscordThreadId),
  })
  .check(
    z.refine((request) => (request.kind === 'slack-app') === (request.token !== undefined), {
      path: ['token'],
      message: 'is required for a slack-app channel, and only for one',
    }),
    z.refine((request) => request.thread_id === undefined || request.kind === 'discord', {
      path: ['thread_id'],
      message: 'is for discord channels only',
    }),
  );
export type CreateChannelRequest = z.infer<typeof CreateChannelRequest>;

/** POST /stats/update-channel: what is given is replaced; the URL only when a new one is given. */
export const UpdateChannelRequest = z.strictObject({
  channelId: requiredText(64),
  name: z.optional(requiredText(ChannelLimits.name)),
  url: z.optional(webhookUrl),
  rules: z.optional(ChannelRules),
  /** A new bot token (`slack-app` channels only); absent: the stored one is kept. */
  token: z.optional(botToken),
  /** A Discord channel's thread (`discord` channels only); null: none; absent: kept. */
  thread_id: z.optional(z.nullable(DiscordThreadId)),
});
export type UpdateChannelRequest = z.infer<typeof UpdateChannelRequest>;

/** POST /stats/delete-channel and /stats/test-channel. */
export const ChannelIdRequest = z.strictObject({ channelId: requiredText(64) });

/** A channel as its owner sees it: never its URL's secret part, never a signing secret. */
export interface ChannelInfo {
  id: string;
  projectId: string;
  kind: ChannelKind;
  name: string;
  /** The host and the start of the path, e.g. `hooks.slack.com/services/T0/B0/…`. */
  target: string;
  rules: ChannelRules;
  /** A `discord` channel's thread id; null: none (or the one its URL names, not shown). */
  thread_id: string | null;
  created_at: string;
  updated_at: string;
}

/** 201 of create-channel: a generic webhook's signing secret is shown here, once. */
export interface CreatedChannel extends ChannelInfo {
  /** `whsec_…` (Standard Webhooks): only for `webhook` channels, only in this answer. */
  signingSecret?: string;
}

export interface ChannelList {
  channels: ChannelInfo[];
}

/** test-channel: whether the platform accepted the sample, and what it said if not. */
export interface ChannelTestResult {
  delivered: boolean;
  error: string | null;
}
