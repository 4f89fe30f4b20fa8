import { wants } from '../domain/channels/channel-rules.js';
import { buildTestsKey, type EventSummary, runBuildKey } from '../domain/channels/event-summary.js';
import { withRunFacts } from '../domain/channels/run-facts.js';
import { withRunTests } from '../domain/channels/run-tests.js';
import { DeliveryError } from '../outbound/delivery-error.js';
import type { ChannelSender } from '../providers/channels/channel-sender.js';
import type { ContactsProvider } from '../providers/contacts-provider.js';
import type { DiscordNotifier } from '../providers/discord.js';
import type { ForwardingProvider } from '../providers/forwarding-provider.js';
import { digestDurations } from '../services/channels/digest-durations.js';
import { digestEvent } from '../services/channels/digest-event.js';
import { flakyCheck } from '../services/channels/flaky-check.js';
import { runTestsJudging } from '../services/channels/run-tests-judging.js';
import type { Storage } from '../storage/storage.js';
import type { OutboxJob } from './outbox-jobs.js';
import { worthSending } from './run-update.js';

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
  const judgeRunTests = runTestsJudging(storage);
  /**
   * A build's summary with what judging found so far on its run's metric records and on the test
   * results sent for its event.
   */
  const factsAdded = async (event: EventSummary): Promise<EventSummary> => {
    const ref = event.run?.ref;
    const withFacts = ref
      ? withRunFacts(event, await storage.channels.runFacts(event.projectId, ref))
      : event;
    // The results sent for its event, else those sent for its build and attempt without one.
    const byEvent = event.eventId
      ? await storage.channels.runTests(event.projectId, event.eventId)
      : undefined;
    const buildKey = byEvent === undefined ? runBuildKey(event.run) : undefined;
    const tests =
      byEvent ??
      (buildKey === undefined
        ? undefined
        : await storage.channels.runTests(event.projectId, buildTestsKey(buildKey)));
    return tests === undefined ? withFacts : withRunTests(withFacts, tests);
  };
  const unconfigured = (what: string) =>
    new DeliveryError(`no ${what} provider is configured any more`, false);

  /** `id`: the job's outbox row, a run's report's number to a generic webhook. */
  return async (job: OutboxJob, id = 0): Promise<void> => {
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
        return channels.send(channel, await factsAdded(job.event), job.messageId, id);
      }
      case 'channel-run-update': {
        const channel = await storage.channels.get(job.channelId);
        // Gone: its messages went with it.
        if (!channel) return;
        const messages =
          job.eventId !== undefined
            ? await storage.channels.eventMessages(channel.id, job.eventId)
            : job.buildKey !== undefined
              ? await storage.channels.buildMessages(channel.id, job.buildKey)
              : await storage.channels.runMessages(channel.id, job.runRef ?? '');
        for (const [index, message] of messages.entries()) {
          const sent = JSON.parse(message.event) as EventSummary;
          if (!wants(channel.rules, sent)) continue;
          const event = await factsAdded(sent);
          if (!worthSending(channel.kind, sent, event)) continue;
          await channels.send(channel, event, `${job.messageId}_${index}`, id);
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
      case 'run-tests':
        return judgeRunTests(
          job.projectId,
          job.eventId !== undefined ? { eventId: job.eventId } : { buildKey: job.buildKey ?? '' },
        );
      case 'contacts-upsert':
        if (!contacts) throw unconfigured('contacts');
        return contacts.upsertContact({ email: job.email, alias: job.alias });
    }
  };
}
