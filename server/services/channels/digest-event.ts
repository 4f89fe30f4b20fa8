import { periodMs } from '../../domain/channels/digest-schedule.js';
import { figuresOf } from '../../domain/channels/digest-summary.js';
import type { EventSummary } from '../../domain/channels/event-summary.js';
import type { ChannelRepository, StoredChannel } from '../../storage/storage.js';
import type { DigestDurations } from './digest-durations.js';

/**
 * A channel's digest for the period ending at `dueAt`, as a message summary: the period's events
 * and the period before's, through the channel's branches and event types, the project's active
 * alerts and the tests that became flaky, and its median build duration in both periods. Read when it is sent, so a digest
 * retried later still tells of its own period.
 */
export async function digestEvent(
  channels: Pick<ChannelRepository, 'eventCounts' | 'activeAlerts' | 'newFlaky'>,
  channel: StoredChannel,
  projectName: string,
  dueAt: number,
  durations: DigestDurations,
): Promise<EventSummary> {
  const digest = channel.rules.digest;
  if (!digest) throw new Error('the channel has no digest');
  const length = periodMs(digest);
  const from = dueAt - length;
  const [current, previous, activeAlerts, newFlaky, duration] = await Promise.all([
    channels.eventCounts(channel.projectId, from, dueAt),
    channels.eventCounts(channel.projectId, from - length, from),
    channels.activeAlerts(channel.projectId),
    channels.newFlaky(channel.projectId, from, dueAt),
    durations(channel.projectId, channel.rules, { from, to: dueAt, previousFrom: from - length }),
  ]);
  const fromIso = new Date(from).toISOString();
  const toIso = new Date(dueAt).toISOString();
  return {
    projectId: channel.projectId,
    projectName,
    eventType: 'digest',
    description: `From ${fromIso.slice(0, 16).replace('T', ' ')} to ${toIso.slice(0, 16).replace('T', ' ')} UTC.`,
    status: null,
    previousStatus: null,
    branch: null,
    commit: null,
    commitUrl: null,
    repository: null,
    job: null,
    runUrl: null,
    buildNumber: null,
    tests: null,
    release: null,
    createdAt: toIso,
    pageUrl: null,
    run: null,
    alert: null,
    digest: {
      every: digest.every,
      from: fromIso,
      to: toIso,
      current: figuresOf(current, channel.rules),
      previous: figuresOf(previous, channel.rules),
      activeAlerts,
      newFlaky,
      duration,
    },
  };
}
