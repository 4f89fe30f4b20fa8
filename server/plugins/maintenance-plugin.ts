import fp from 'fastify-plugin';
import { HOUR_MS } from '../outbox/retry-schedule.js';

/** Idempotency answers older than their TTL go, once at start and then every hour. */
export const maintenancePlugin = fp(
  async (app) => {
    const purge = () =>
      app.services
        .purgeIdempotencyKeys()
        .catch((error) => app.log.error({ err: error }, 'could not purge idempotency keys'));
    let timer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      void purge();
      timer = setInterval(purge, HOUR_MS).unref();
    });
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'maintenance', dependencies: ['services'] },
);
