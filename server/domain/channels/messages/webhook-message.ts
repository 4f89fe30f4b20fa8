import type { EventSummary } from '../event-summary.js';

/**
 * A generic webhook's body, in the shape Standard Webhooks recommends (`type`, `timestamp`,
 * `data`): the event summary as it is, for the receiver to render as it likes.
 */
export function webhookMessage(event: EventSummary, mention: boolean) {
  const type = event.digest
    ? 'digest'
    : event.flaky
      ? 'tests.flaky'
      : event.alert
        ? 'alert'
        : event.release
          ? 'release'
          : event.status === 'failure'
            ? 'build.failed'
            : 'build';
  return {
    type: `ci-stats.${type}`,
    timestamp: event.createdAt,
    data: { ...event, mention },
  };
}
