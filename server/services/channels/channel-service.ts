import { randomBytes, randomUUID } from 'node:crypto';
import { type ChannelKind, parseChannelTarget } from '../../../contract/channel-targets.js';
import {
  type ChannelInfo,
  ChannelLimits,
  type ChannelList,
  type ChannelRules,
  type ChannelTestResult,
  type CreateChannelRequest,
  type CreatedChannel,
  type UpdateChannelRequest,
} from '../../../contract/channels.js';
import { secretContext, targetContext } from '../../domain/channels/channel-secrets.js';
import { nextDigestAt } from '../../domain/channels/digest-schedule.js';
import { literalAddressRefused } from '../../domain/channels/public-address.js';
import { Conflict, Forbidden, Invalid, NotFound } from '../../domain/domain-errors.js';
import { nowIso } from '../../domain/time.js';
import type { SecretBox } from '../../outbox/secret-box.js';
import type { Storage, StoredChannel } from '../../storage/storage.js';
import type { ProjectAccess } from '../project-access.js';
import type { ChannelDirectory } from './channel-directory.js';

/** Sends a sample message to a channel now (test-channel); resolves with what came of it. */
export type SampleSender = (channel: StoredChannel) => Promise<ChannelTestResult>;

export interface ChannelServiceOptions {
  secrets: SecretBox;
  /** Hosts a generic webhook may name although they are private (WEBHOOK_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  directory: ChannelDirectory;
  sendSample: SampleSender;
}

/** When a channel with these rules is next due a digest: null without one. */
const digestDue = (rules: ChannelRules): number | null =>
  rules.digest ? nextDigestAt(rules.digest, Date.now()) : null;

export const infoOf = (channel: StoredChannel): ChannelInfo => ({
  id: channel.id,
  projectId: channel.projectId,
  kind: channel.kind,
  name: channel.name,
  target: channel.hint,
  rules: channel.rules,
  thread_id: channel.threadId ?? null,
  created_at: channel.createdAt,
  updated_at: channel.updatedAt,
});

/**
 * A project's channels, managed by its owner only: the URL is validated for its platform and
 * sealed at once, a generic webhook's signing secret is made here and shown once, and neither is
 * ever shown again (a list shows the host and the start of the path).
 */
export function channelService(
  storage: Storage,
  access: ProjectAccess,
  { secrets, allowedHosts, directory, sendSample }: ChannelServiceOptions,
) {
  const targetOf = (kind: ChannelKind, url: string) => {
    const target = parseChannelTarget(kind, url, allowedHosts);
    // An address given as such is judged now; a name when the connection is made.
    if (!target || literalAddressRefused(new URL(target.url), allowedHosts)) {
      throw new Invalid('channel-url');
    }
    return target;
  };

  /** One of the caller's channels; another account's is as unknown as a missing one. */
  const owned = async (accountId: string, channelId: string): Promise<StoredChannel> => {
    const channel = await storage.channels.get(channelId);
    if (!channel) throw new NotFound('channel');
    try {
      await access.assertOwn({ accountId, projectIds: null }, channel.projectId);
    } catch (error) {
      if (error instanceof Forbidden) throw new NotFound('channel');
      throw error;
    }
    return channel;
  };

  return {
    async create(accountId: string, request: CreateChannelRequest): Promise<CreatedChannel> {
      await access.assertOwn({ accountId, projectIds: null }, request.projectId);
      const target = targetOf(request.kind, request.url);
      const id = randomUUID();
      // Standard Webhooks' secret format: `whsec_` and base64 of 24 to 64 random bytes.
      const signingSecret =
        request.kind === 'webhook' ? `whsec_${randomBytes(32).toString('base64')}` : undefined;
      // A Slack app channel's secret is its bot token, sealed as a signing secret is.
      const secret = signingSecret ?? (request.kind === 'slack-app' ? request.token : undefined);
      const at = nowIso();
      const channel: StoredChannel = {
        id,
        projectId: request.projectId,
        kind: request.kind,
        name: request.name,
        hint: target.hint,
        target: secrets.seal(target.url, targetContext(id)),
        secret: secret === undefined ? null : secrets.seal(secret, secretContext(id)),
        rules: request.rules,
        createdAt: at,
        updatedAt: at,
        nextDigestAt: digestDue(request.rules),
        threadId: request.thread_id ?? null,
      };
      if (!(await storage.channels.create(channel, ChannelLimits.channelsPerProject))) {
        throw new Conflict('too-many-channels');
      }
      directory.changed(request.projectId);
      return { ...infoOf(channel), ...(signingSecret === undefined ? {} : { signingSecret }) };
    },

    async list(accountId: string, projectId: string): Promise<ChannelList> {
      await access.assertOwn({ accountId, projectIds: null }, projectId);
      return { channels: (await storage.channels.list(projectId)).map(infoOf) };
    },

    async update(accountId: string, request: UpdateChannelRequest): Promise<ChannelInfo> {
      const channel = await owned(accountId, request.channelId);
      const target = request.url === undefined ? undefined : targetOf(channel.kind, request.url);
      if (request.token !== undefined && channel.kind !== 'slack-app') {
        throw new Invalid('channel-token');
      }
      if (request.thread_id !== undefined && channel.kind !== 'discord') {
        throw new Invalid('channel-thread');
      }
      const updated = await storage.channels.update(
        channel.id,
        accountId,
        {
          name: request.name,
          rules: request.rules && { rules: request.rules, nextDigestAt: digestDue(request.rules) },
          hint: target?.hint,
          target: target && secrets.seal(target.url, targetContext(channel.id)),
          secret: request.token && secrets.seal(request.token, secretContext(channel.id)),
          threadId: request.thread_id,
        },
        nowIso(),
      );
      if (!updated) throw new NotFound('channel');
      directory.changed(channel.projectId);
      return infoOf(updated);
    },

    async delete(accountId: string, channelId: string): Promise<void> {
      const channel = await owned(accountId, channelId);
      if (!(await storage.channels.delete(channelId, accountId))) throw new NotFound('channel');
      directory.changed(channel.projectId);
    },

    /** Sends a sample message now, paced like any other, and says whether it arrived. */
    async test(accountId: string, channelId: string): Promise<ChannelTestResult> {
      return sendSample(await owned(accountId, channelId));
    },
  };
}

export type ChannelService = ReturnType<typeof channelService>;
