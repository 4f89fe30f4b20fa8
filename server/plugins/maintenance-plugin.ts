import fp from 'fastify-plugin';
import { HOUR_MS } from '../outbox/retry-schedule.js';

const MINUTE_MS = 60_000;

/**
 * Housekeeping on timers: Idempotency-Key answers older than their TTL and expired sessions go,
 * and records past their project's retention (retention-service.ts), at start and then every
 * hour; when keys were last used is written every minute (and at close),
 * so that using a key is never a write.
 */
export const maintenancePlugin = fp(
  async (app) => {
    const { services } = app;
    // Once the app closes, a task still running loses its database: that is the shutdown, not a
    // failure to report (the sweep's batches are transactions; the next start goes on).
    let closing = false;
    const guarded = (what: string, task: () => Promise<unknown>) => () =>
      task().catch((error) => {
        if (!closing) app.logger.error({ err: error }, `could not ${what}`);
      });
    const purge = guarded('purge expired idempotency keys and sessions', () =>
      Promise.all([services.purgeIdempotencyKeys(), services.sessions.purgeExpired()]),
    );
    const sweep = guarded('delete records past their retention', async () => {
      const report = await services.retention.sweep();
      if (report.deleted > 0 || report.partitionsDropped > 0)
        app.logger.info(report, 'deleted records past their retention');
    });
    const hourly = () => Promise.all([purge(), sweep()]);
    const flushKeyUse = guarded('record when keys were used', () => services.apiKeys.flushKeyUse());
    const timers: NodeJS.Timeout[] = [];
    app.addHook('onReady', async () => {
      void hourly();
      timers.push(
        setInterval(hourly, HOUR_MS).unref(),
        setInterval(flushKeyUse, MINUTE_MS).unref(),
      );
    });
    app.addHook('onClose', async () => {
      for (const timer of timers) clearInterval(timer);
      await flushKeyUse();
      closing = true;
    });
  },
  { name: 'maintenance', dependencies: ['services'] },
);
