import { wants } from '../../domain/channels/channel-rules.js';
import type { AlertSummary, EventSummary } from '../../domain/channels/event-summary.js';
import { newRecordId } from '../../domain/ids.js';
import type { ChannelMessageJob } from '../../outbox/outbox-jobs.js';
import type { StoredChannel } from '../../storage/storage.js';

export interface AlertFacts {
  projectId: string;
  projectName: string;
  branch: string | null;
  commit: string | null;
  createdAt: number;
  alert: AlertSummary;
}

/**
 * The channel messages a regression alert causes (the `alerts` rule), queued in the judging
 * transaction that raised it, as an event's are with the event: one per channel that wants it.
 */
export function alertMessages(channels: readonly StoredChannel[], facts: AlertFacts) {
  const { alert } = facts;
  const commit = facts.commit ? ` at ${facts.commit.slice(0, 12)}` : '';
  const summary: EventSummary = {
    projectId: facts.projectId,
    projectName: facts.projectName,
    eventType: 'alert',
    description:
      `${alert.key} = ${alert.value} on ${facts.branch ?? 'no branch'}${commit}: beyond the ` +
      `${alert.side} limit ${alert.limit} (baseline ${alert.baseline ?? 'none'}, ${alert.test}).`,
    status: null,
    previousStatus: null,
    branch: facts.branch,
    commit: facts.commit,
    commitUrl: null,
    repository: null,
    job: null,
    runUrl: null,
    buildNumber: null,
    tests: null,
    release: null,
    createdAt: new Date(facts.createdAt).toISOString(),
    pageUrl: null,
    run: null,
    alert,
  };
  return channels
    .filter((channel) => wants(channel.rules, summary))
    .map(
      (channel): ChannelMessageJob => ({
        kind: 'channel-message',
        channelId: channel.id,
        messageId: `msg_${newRecordId()}`,
        event: summary,
      }),
    );
}
