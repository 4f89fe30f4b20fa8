import { wants } from '../domain/channels/channel-rules.js';
import type { EventSummary } from '../domain/channels/event-summary.js';
import { canEdit, withRunFacts } from '../domain/channels/run-facts.js';
import { DeliveryError } from '../outbound/delivery-error.js';
import type { ChannelSender } from '../providers/channels/channel-sender.js';
import type { ContactsProvider } from '../providers/contacts-provider.js';
import type { DiscordNotifier } from '../providers/discord.js';
import type { ForwardingProvider } from '../providers/forwarding-provider.js';
import { digestDurations } from '../services/channels/digest-durations.js';
import { digestEvent } from '../services/channels/digest-event.js';
import { flakyCheck } from '../services/channels/flaky-check.js';
import type { Storage } from '../storage/storage.js';
import type { OutboxJob } from './outbox-jobs.js';

export interface Executors {
  discord: DiscordNotifier;
  forwarding: ForwardingProvider | undefined;
  contacts: ContactsProvider | undefined;
  channels: ChannelSender;
  /** The alias locks (shared with E2), who forwards for an alias now, and the channels. */
  storage: Pick<
    Storage,
    | 'lock'
    | 'profiles'
    | 'channels'
    | 'projects'
    | 'projectPage'
    | 'stats'
    | 'verdicts'
    | 'tests'
    | 'transaction'
  >;
  /** The server's public origin, for links back in the messages it makes (PUBLIC_URL). */
  publicUrl?: string | undefined;
}

/** Carries out one job against the service it names. */
export function jobExecutor(executors: Executors) {
  const { discord, forwarding, contacts, channels, storage } = executors;
  const durations = digestDurations(storage);
  const checkFlaky = flakyCheck(storage, executors.publicUrl);
  /** A build's summary with what judging found on its run's metric records so far. */
  const factsAdded = async (event: EventSummary): Promise<EventSummary> => {
    const ref = event.run?.ref;
    if (!ref) return event;
    return withRunFacts(event, await storage.channels.runFacts(event.projectId, ref));
  };
  const unconfigured = (what: string) =>
    new DeliveryError(`no ${what} provider is configured any more`, false);

  return async (job: OutboxJob): Promise<void> => {
    switch (job.kind) {
      case 'chat-notification':
        return discord.send(job);
      case 'forwarding-remove-alias': {
        const provider = forwarding;
        if (!provider) throw unconfigured('forwarding');
        // The name was freed by a rename; by the time this runs (maybe hours later) someone may
        // have taken it and enabled forwarding: then the alias is theirs, and stays.
        return storage.lock(`alias:${job.alias}`, async () => {
          if (!(await storage.profiles.isForwarding(job.alias))) {
            await provider.removeAlias(job.alias);
          }
        });
      }
      case 'channel-message': {
        // The channel as it is now: a deleted one is never sent to, and rules changed since the
        // event was stored are judged again, so a channel hears only what it asks for now.
        const channel = await storage.channels.get(job.channelId);
        if (!channel) throw new DeliveryError('the channel was deleted', false);
        if (!wants(channel.rules, job.event)) return;
        return channels.send(channel, await factsAdded(job.event), job.messageId);
      }
      case 'channel-run-update': {
        const channel = await storage.channels.get(job.channelId);
        // Gone: its messages went with it.
        if (!channel) return;
        const facts = await storage.channels.runFacts(job.projectId, job.runRef);
        if (facts === undefined) return;
        const messages = await storage.channels.runMessages(channel.id, job.runRef);
        for (const [index, message] of messages.entries()) {
          const sent = JSON.parse(message.event) as EventSummary;
          if (!wants(channel.rules, sent)) continue;
          const event = withRunFacts(sent, facts);
          const before = sent.facts ?? null;
          const now = event.facts ?? null;
          if (JSON.stringify(before) === JSON.stringify(now)) continue;
          // Where a message cannot be edited (a chat's new message), only a new regression is
          // worth another; a generic receiver keeps one record per run, so it hears of any.
          const everyFact = canEdit(channel.kind) || channel.kind === 'webhook';
          if (!everyFact && (now?.regressionCount ?? 0) <= (before?.regressionCount ?? 0)) {
            continue;
          }
          await channels.send(channel, event, `${job.messageId}_${index}`);
        }
        return;
      }
      case 'channel-digest': {
        const channel = await storage.channels.get(job.channelId);
        if (!channel) throw new DeliveryError('the channel was deleted', false);
        // Its digest was removed since: nothing to send.
        if (!channel.rules.digest) return;
        const project = await storage.projects.find(channel.projectId);
        const event = await digestEvent(
          storage.channels,
          channel,
          project?.name ?? '',
          job.dueAt,
          durations,
        );
        return channels.send(channel, event, job.messageId);
      }
      case 'flaky-check':
        await checkFlaky(job.projectId);
        return;
      case 'contacts-upsert':
        if (!contacts) throw unconfigured('contacts');
        return contacts.upsertContact({ email: job.email, alias: job.alias });
    }
  };
}
