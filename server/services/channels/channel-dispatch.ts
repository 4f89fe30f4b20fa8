import { needsPreviousStatus, wants } from '../../domain/channels/channel-rules.js';
import { summarize } from '../../domain/channels/event-summary.js';
import { newRecordId } from '../../domain/ids.js';
import type { ChannelMessageJob } from '../../outbox/outbox-jobs.js';
import type { EventRow, Storage } from '../../storage/storage.js';
import type { ChannelDirectory } from './channel-directory.js';

/**
 * The channel messages an event causes, queued with the event in its transaction: one job per
 * channel whose rules want it. Nothing is read when the project has no channel; the previous
 * status (for `changes`) only when a channel asks for it.
 */
export function channelDispatch(
  storage: Storage,
  directory: ChannelDirectory,
  publicUrl: string | undefined,
) {
  return async (
    row: EventRow,
    projectName: string,
    payload: Record<string, unknown> | undefined,
  ): Promise<ChannelMessageJob[]> => {
    const channels = await directory.of(row.projectId);
    if (channels.length === 0) return [];
    const event = summarize({
      projectId: row.projectId,
      projectName,
      eventType: row.eventType,
      description: row.description,
      payload: payload ?? null,
      branch: row.branch,
      status: row.status,
      createdAt: row.createdAt,
      eventId: row.id,
      pageUrl: publicUrl
        ? `${publicUrl}/dashboard/projects/${encodeURIComponent(row.projectId)}`
        : null,
    });
    if (event.status !== null && channels.some((channel) => needsPreviousStatus(channel.rules))) {
      event.previousStatus = await storage.stats.latestStatus(row.projectId, {
        branch: row.branch ?? undefined,
        eventType: row.eventType,
      });
    }
    return channels
      .filter((channel) => wants(channel.rules, event))
      .map((channel) => ({
        kind: 'channel-message' as const,
        channelId: channel.id,
        // Standard Webhooks' `webhook-id`, the same on every retry: a run's first message's is
        // kept for all its reports (the sender takes the one remembered for the run).
        messageId: `msg_${newRecordId()}`,
        event,
      }));
  };
}

export type ChannelDispatch = ReturnType<typeof channelDispatch>;
