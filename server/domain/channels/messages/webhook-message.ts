import type { EventSummary } from '../event-summary.js';

/**
 * A generic webhook's body, in the shape Standard Webhooks recommends (`type`, `timestamp`,
 * `data`): the event summary as it is, for the receiver to render as it likes. A run's reports
 * all go under its one `webhook-id`: each tells its place (`data.run.sequence`, growing with each
 * report, the same on a retry) and whether it updates the message of an earlier report
 * (`data.run.update`), so a receiver upserts by id and keeps the highest sequence.
 */
export function webhookMessage(
  event: EventSummary,
  mention: boolean,
  run?: { sequence: number; update: boolean },
) {
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
    data: {
      ...event,
      ...(event.run && run ? { run: { ...event.run, ...run } } : {}),
      mention,
    },
  };
}
