import { randomUUID } from 'node:crypto';
import { type ChannelKind, slackChannelOf } from '../../../contract/channel-targets.js';
import type { ChannelTestResult } from '../../../contract/channels.js';
import { parseDiscordWebhookUrl } from '../../../contract/discord-webhook.js';
import { mentions, wants } from '../../domain/channels/channel-rules.js';
import { secretContext, targetContext } from '../../domain/channels/channel-secrets.js';
import { type EventSummary, runBuildKey } from '../../domain/channels/event-summary.js';
import { discordMessage } from '../../domain/channels/messages/discord-message.js';
import { sampleEvent } from '../../domain/channels/messages/message-parts.js';
import { slackMessage } from '../../domain/channels/messages/slack-message.js';
import { TeamsLimits, teamsMessage } from '../../domain/channels/messages/teams-message.js';
import { webhookMessage } from '../../domain/channels/messages/webhook-message.js';
import { literalAddressRefused } from '../../domain/channels/public-address.js';
import { DeliveryError } from '../../outbound/delivery-error.js';
import type { OutboundHttp, OutboundRequest } from '../../outbound/outbound-http.js';
import type { SecretBox } from '../../outbox/secret-box.js';
import type { Storage, StoredChannel } from '../../storage/storage.js';
import { discordReadyAt, discordRetryAfter } from '../discord.js';
import { GONE, SlackApiError, slackAnswer } from './slack-web-api.js';
import { standardWebhookHeaders } from './standard-webhooks.js';

/**
 * The least time between two messages to one channel, from each platform's published limits,
 * with a margin for the time requests spend in transit (two sent 400 ms apart may arrive closer):
 * Discord 5 requests per 2 s per webhook (and its X-RateLimit headers, followed as well), Slack 1
 * message per second per webhook (and per channel for an app's chat.postMessage), Teams at most
 * 4 requests per second. A generic receiver states
 * its own limits with 429 and Retry-After.
 */
export const SPACING_MS: Record<ChannelKind, number> = {
  discord: 500,
  slack: 1100,
  'slack-app': 1100,
  teams: 300,
  webhook: 0,
};

/** How long a run's message is remembered for its later reports to edit. */
export const RUN_MESSAGE_DAYS = 30;

export interface ChannelSenderOptions {
  /** For the platforms' own hosts. */
  http: OutboundHttp;
  /** For generic webhooks: connects to public addresses only (public-address.ts). */
  webhookHttp: OutboundHttp;
  storage: Pick<Storage, 'channels' | 'projects'>;
  secrets: SecretBox;
  discordOrigin: string;
  slackOrigin: string;
  /** Slack's Web API, for Slack app channels (https://slack.com). */
  slackApiOrigin: string;
  teamsOrigin: string | undefined;
  allowedHosts: readonly string[];
  publicUrl: string | undefined;
  sleep?: (ms: number) => Promise<void>;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends a message to a channel: its URL opened from its seal only now, the request rebuilt from
 * the validated parts (to the configured platform origins), the message in the platform's format,
 * paced by the channel's sending slots (shared by every replica through the database), and a
 * platform's "wait" (429 Retry-After, Discord's X-RateLimit headers) applied to the channel's
 * next slot so no later message runs into it.
 */
export function channelSender(options: ChannelSenderOptions) {
  const { storage, secrets } = options;
  const sleep = options.sleep ?? wait;

  const holdFor = (channel: StoredChannel, at: number) =>
    storage.channels.holdUntil(channel.id, at);

  function request(
    channel: StoredChannel,
    url: string,
    event: EventSummary,
    messageId: string,
  ): {
    req: OutboundRequest;
    via: OutboundHttp;
    /** A generic webhook's body and headers under `id`, signed now (a run's: with `sequence`). */
    sign?: (
      id: string,
      run?: { sequence: number; update: boolean },
    ) => Pick<OutboundRequest, 'jsonText' | 'headers'>;
  } {
    const mention = mentions(channel.rules, event) ? (channel.rules.mention ?? null) : null;
    const parsed = new URL(url);
    const secretParts = [url, parsed.pathname, parsed.search].filter((part) => part.length > 1);
    const base = { method: 'POST' as const, secrets: secretParts };
    switch (channel.kind) {
      case 'discord': {
        const target = parseDiscordWebhookUrl(url);
        if (!target) throw new DeliveryError('Discord: the stored URL is no webhook URL', false);
        const query = new URLSearchParams({ wait: 'true' });
        // The channel's thread, else the one its URL names: on the execute and on every edit.
        const threadId = channel.threadId ?? target.threadId;
        if (threadId) query.set('thread_id', threadId);
        return {
          via: options.http,
          req: {
            ...base,
            url: `${options.discordOrigin}${target.path}?${query}`,
            json: discordMessage(event, mention),
            service: 'Discord',
            retryAfter: (_headers, body) => discordRetryAfter(body),
            onAnswer: (status, headers, body) => {
              const at = discordReadyAt(status, headers, body, Date.now());
              if (at !== undefined) void holdFor(channel, at).catch(() => undefined);
            },
          },
        };
      }
      case 'slack':
        return {
          via: options.http,
          req: {
            ...base,
            url: `${options.slackOrigin}${parsed.pathname}`,
            json: slackMessage(event, mention),
            service: 'Slack',
          },
        };
      case 'slack-app': {
        const token = channel.secret && secrets.open(channel.secret, secretContext(channel.id));
        const slackChannel = slackChannelOf(url);
        if (!token || !slackChannel) {
          throw new DeliveryError('Slack: the channel has no bot token or channel id', false);
        }
        return {
          via: options.http,
          req: {
            method: 'POST',
            url: `${options.slackApiOrigin}/api/chat.postMessage`,
            headers: { authorization: `Bearer ${token}` },
            json: { channel: slackChannel, ...slackMessage(event, mention) },
            secrets: [token],
            service: 'Slack',
          },
        };
      }
      case 'teams': {
        const json = teamsMessage(event);
        if (Buffer.byteLength(JSON.stringify(json)) > TeamsLimits.bytes) {
          throw new DeliveryError('Teams: the card is over 28 KB', false);
        }
        return {
          via: options.http,
          req: {
            ...base,
            url: options.teamsOrigin
              ? `${options.teamsOrigin}${parsed.pathname}${parsed.search}`
              : url,
            json,
            service: 'Teams',
          },
        };
      }
      case 'webhook': {
        if (literalAddressRefused(parsed, options.allowedHosts)) {
          throw new DeliveryError(
            `webhook: ${parsed.hostname} is not a public address: refused`,
            false,
          );
        }
        const secret = channel.secret && secrets.open(channel.secret, secretContext(channel.id));
        if (!secret) throw new DeliveryError('webhook: the channel has no signing secret', false);
        // Signed when it leaves (a fresh timestamp, over the body sent), on every attempt.
        const sign = (id: string, run?: { sequence: number; update: boolean }) => {
          const jsonText = JSON.stringify(webhookMessage(event, mention !== null, run));
          const at = Math.floor(Date.now() / 1000);
          return { jsonText, headers: standardWebhookHeaders(secret, id, at, jsonText) };
        };
        return {
          via: options.webhookHttp,
          req: {
            ...base,
            url: parsed.href,
            ...sign(messageId),
            secrets: [...secretParts, secret],
            service: 'webhook',
          },
          sign,
        };
      }
    }
  }

  /**
   * Waits for the channel's next sending slot; false when its rules, judged again after the
   * wait, no longer want the event (`judged`), and throws when it was deleted meanwhile.
   */
  async function paced(channel: StoredChannel, event: EventSummary, judged: boolean) {
    const now = Date.now();
    const slot = await storage.channels.reserveSlot(channel.id, now, SPACING_MS[channel.kind]);
    if (slot === undefined) throw new DeliveryError('the channel was deleted', false);
    if (slot > now) {
      await sleep(slot - now);
      // Changed while it waited for its slot: deleted, not sent; its rules judged again.
      const current = await storage.channels.get(channel.id);
      if (!current) throw new DeliveryError('the channel was deleted', false);
      if (judged && !wants(current.rules, event)) return false;
    }
    return true;
  }

  async function sendNow(channel: StoredChannel, req: OutboundRequest, via: OutboundHttp) {
    try {
      return await via.send(req);
    } catch (error) {
      if (error instanceof DeliveryError && error.retryAfterMs !== undefined) {
        await holdFor(channel, Date.now() + error.retryAfterMs);
      }
      throw error;
    } finally {
      // The slot was reserved before the request left; on a loaded machine it may leave (and
      // arrive) late, then the next one on time: two arrive closer than the platform allows
      // (a Slack 429 seen at 0.9 s apart). The answer has come by now, so the request arrived
      // before now: the next one goes no sooner than the spacing after it.
      const spacing = SPACING_MS[channel.kind];
      if (spacing > 0) await holdFor(channel, Date.now() + spacing).catch(() => undefined);
    }
  }

  /**
   * A run's report on a platform that edits its messages: the message the run has already is
   * edited (`edit`); one the platform says is gone (`gone`) is posted anew, and the new message's
   * id (`post`'s answer, null for none) is remembered for the run's later reports.
   */
  async function editOrPost(
    channel: StoredChannel,
    event: EventSummary,
    job: number,
    platform: {
      edit(existing: string): Promise<unknown>;
      gone(error: unknown): boolean;
      post(): Promise<string | null>;
    },
  ): Promise<void> {
    const run = event.run;
    const existing = run ? await storage.channels.runMessage(channel.id, run.key) : undefined;
    if (existing !== undefined) {
      try {
        await platform.edit(existing);
        await remember(channel, event, existing, job);
        return;
      } catch (error) {
        if (!platform.gone(error)) throw error;
      }
      // The new message is a second request: it waits for a slot of its own.
      if (!(await paced(channel, event, true))) return;
    }
    const id = await platform.post();
    if (id !== null) await remember(channel, event, id, job);
  }

  /**
   * A generic webhook's report of a run goes under the run's one `webhook-id`: its first
   * report's, claimed for the run in one statement before the first is sent (so two replicas
   * sending two reports at once agree, and a report accepted but not recorded leaves no second
   * id). Its body's `data.run.sequence` is the report's job's number in the outbox, which grows
   * with each report queued and stays the same on its retries: a retry of an older report that
   * arrives after a newer one is older to the receiver too. Signed now, over that body. A report
   * without a run goes under its job's own id.
   */
  async function sendWebhook(
    channel: StoredChannel,
    event: EventSummary,
    req: OutboundRequest,
    via: OutboundHttp,
    sign: (
      id: string,
      run?: { sequence: number; update: boolean },
    ) => Pick<OutboundRequest, 'jsonText' | 'headers'>,
    messageId: string,
    sequence: number,
  ): Promise<void> {
    const run = event.run;
    if (!run) {
      await sendNow(channel, { ...req, ...sign(messageId) }, via);
      return;
    }
    const id = await storage.channels.claimRunId(channel.id, run.key, messageId, Date.now());
    if (id === undefined) throw new DeliveryError('the channel was deleted', false);
    // The run's first report (and its retries) makes the receiver's record; the others update it.
    await sendNow(channel, { ...req, ...sign(id, { sequence, update: id !== messageId }) }, via);
    await remember(channel, event, id, sequence);
  }

  /**
   * A Discord message for a run that has one already edits it (PATCH of the message whose id
   * `?wait=true` gave); one deleted in Discord meanwhile (404 Unknown Message) is posted anew.
   * Slack's incoming webhooks and Teams' workflows cannot edit: each report is a new message there.
   */
  const sendDiscord = (
    channel: StoredChannel,
    event: EventSummary,
    req: OutboundRequest,
    via: OutboundHttp,
    job: number,
  ) =>
    editOrPost(channel, event, job, {
      edit(existing) {
        const url = new URL(req.url);
        url.pathname = `${url.pathname}/messages/${existing}`;
        url.searchParams.delete('wait');
        return sendNow(channel, { ...req, method: 'PATCH', url: url.href }, via);
      },
      gone: (error) => error instanceof DeliveryError && error.status === 404,
      async post() {
        const answer = await sendNow(channel, req, via);
        const id = (answer.body as { id?: unknown } | null)?.id;
        return typeof id === 'string' && /^\d{1,20}$/.test(id) ? id : null;
      },
    });

  /**
   * Remembers the platform's id of a run's message, for the run's later reports to edit, and
   * the summary sent in it, for the facts judged later on the run's metrics to send it again
   * with them ('' for a platform that cannot edit: a new message then; a generic webhook's
   * `webhook-id`), and the outbox job that sent it (`job`, 0: unknown).
   */
  async function remember(channel: StoredChannel, event: EventSummary, id: string, job = 0) {
    if (!event.run) return;
    const now = Date.now();
    const ref = event.run.ref;
    // Not remembered (the database away): the run's next report posts a new message, which
    // is better than failing, and sending again, one the platform accepted.
    await storage.channels
      .rememberRunMessage(
        channel.id,
        event.run.key,
        id,
        now,
        now - RUN_MESSAGE_DAYS * 86_400_000,
        ref === undefined
          ? undefined
          : {
              runRef: ref,
              event: JSON.stringify(event),
              eventId: event.eventId ?? undefined,
              buildKey: runBuildKey(event.run),
            },
        job,
      )
      .catch(() => undefined);
  }

  /**
   * A Slack app channel: a run's first report is `chat.postMessage`, whose answer's `ts` is the
   * message's id in the channel; its later reports `chat.update` that message (channel and ts).
   * Slack answers its failures with HTTP 200 and `ok: false`: each is a DeliveryError, final but
   * for Slack's own trouble; an edit of a message gone (`message_not_found`) posts it anew.
   */
  const sendSlackApp = (
    channel: StoredChannel,
    event: EventSummary,
    req: OutboundRequest,
    via: OutboundHttp,
    job: number,
  ) =>
    editOrPost(channel, event, job, {
      edit(existing) {
        const url = req.url.replace(/\/api\/chat\.postMessage$/, '/api/chat.update');
        const json = { ...(req.json as Record<string, unknown>), ts: existing };
        return sendNow(channel, { ...req, url, json }, via).then(slackAnswer);
      },
      gone: (error) => error instanceof SlackApiError && GONE.has(error.code),
      post: async () => slackAnswer(await sendNow(channel, req, via)).ts,
    });

  /**
   * `sequence`: the job's number in the outbox (a generic webhook's `data.run.sequence`);
   * `judged`: whether the channel's rules are judged again after waiting (not for a sample).
   */
  async function send(
    channel: StoredChannel,
    event: EventSummary,
    messageId: string,
    sequence = 0,
    judged = true,
  ): Promise<void> {
    const url = secrets.open(channel.target, targetContext(channel.id));
    const { req, via, sign } = request(channel, url, event, messageId);
    if (!(await paced(channel, event, judged))) return;
    // An older report of the run whose delivery failed, retried after a newer one was sent (a
    // lane goes on while a job waits for its retry): not sent, it would put the older state
    // back (as a report coalesced into a later one is not).
    const run = event.run;
    if (
      run &&
      sequence > 0 &&
      (await storage.channels.runSentJob(channel.id, run.key)) > sequence
    ) {
      return;
    }
    if (channel.kind === 'discord') return sendDiscord(channel, event, req, via, sequence);
    if (channel.kind === 'slack-app') return sendSlackApp(channel, event, req, via, sequence);
    if (sign) return sendWebhook(channel, event, req, via, sign, messageId, sequence);
    await sendNow(channel, req, via);
    if (run?.ref) await remember(channel, event, '', sequence);
  }

  return {
    send,

    /** A sample failed build to the channel now; what came of it, as test-channel answers. */
    async sample(channel: StoredChannel): Promise<ChannelTestResult> {
      const project = await storage.projects.find(channel.projectId);
      const pageUrl = options.publicUrl
        ? `${options.publicUrl}/dashboard/projects/${encodeURIComponent(channel.projectId)}`
        : null;
      const event = sampleEvent(channel.projectId, project?.name ?? 'your project', pageUrl);
      try {
        await send(channel, event, `msg_${randomUUID()}`, 0, false);
        return { delivered: true, error: null };
      } catch (error) {
        if (!(error instanceof DeliveryError)) throw error;
        return { delivered: false, error: error.message };
      }
    },
  };
}

export type ChannelSender = ReturnType<typeof channelSender>;
