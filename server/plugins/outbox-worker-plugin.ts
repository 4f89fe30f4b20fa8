import fp from 'fastify-plugin';
import { jobExecutor } from '../outbox/job-executor.js';
import { OutboxWorker } from '../outbox/outbox-worker.js';
import { HOUR_MS } from '../outbox/retry-schedule.js';

/**
 * Delivers the outbox: starts when the app is ready, wakes when a commit queued jobs, and on
 * close lets the deliveries under way finish (each bounded by its timeout) before the storage
 * and the outbound client close.
 */
export const outboxWorkerPlugin = fp(
  async (app) => {
    const { storage, providers, config } = app;
    const worker = new OutboxWorker({
      outbox: storage.outbox,
      execute: jobExecutor({ ...providers, storage, publicUrl: config.publicUrl }),
      policy: {
        baseMs: config.outbound.retryBaseMs,
        capMs: HOUR_MS,
        maxAttempts: config.outbound.maxAttempts,
      },
      log: app.logger.child({ component: 'outbox' }),
      // One lane per webhook or channel: a slow or rate-limited one never holds up another's
      // messages, and a channel's messages go in the order of their events.
      laneOf: (job) =>
        job.kind === 'chat-notification'
          ? `discord:${job.webhook.webhookId}`
          : job.kind === 'channel-message' ||
              job.kind === 'channel-digest' ||
              job.kind === 'channel-run-update'
            ? `channel:${job.channelId}`
            : job.kind === 'flaky-check'
              ? `flaky:${job.projectId}`
              : job.kind === 'run-tests'
                ? `tests:${job.projectId}`
                : undefined,
      readyAt: (job) => (job.kind === 'chat-notification' ? providers.discord.readyAt(job) : 0),
      // A run's queued reports to one channel: only the latest is sent (it tells the latest
      // state, and edits the run's message where the platform can).
      // A run's queued updates (new facts judged on its metrics): the latest reads them all.
      // A project's queued flaky checks: one judges every result stored before it ran.
      // An event's (or a build's) queued judgings of its tests: the latest reads every batch
      // stored before it.
      coalesceKey: (job) =>
        job.kind === 'channel-message' && job.event.run
          ? job.event.run.key
          : job.kind === 'channel-run-update'
            ? job.eventId !== undefined
              ? `update-event:${job.eventId}`
              : job.buildKey !== undefined
                ? `update-build:${job.buildKey}`
                : `update:${job.runRef}`
            : job.kind === 'flaky-check'
              ? 'flaky'
              : job.kind === 'run-tests'
                ? job.eventId !== undefined
                  ? `tests:${job.eventId}`
                  : `tests-build:${job.buildKey}`
                : undefined,
    });
    // Jobs are sent once the change that queued them has committed.
    storage.onJobsQueued(() => worker.wake());
    app.addHook('onReady', async () => worker.start());
    app.addHook('onClose', () => worker.stop());
  },
  { name: 'outbox-worker', dependencies: ['storage', 'outbound'] },
);
