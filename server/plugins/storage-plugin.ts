import fp from 'fastify-plugin';
import { openStorage } from '../storage/open-storage.js';
import type { Storage } from '../storage/storage.js';

declare module 'fastify' {
  interface FastifyInstance {
    storage: Storage;
  }
}

/** The database the configuration names, open for the app's life and closed last. */
export const storagePlugin = fp(
  async (app) => {
    const storage = await openStorage(app.config, {
      onBackup: ({ file, from, to }) =>
        app.logger.info({ file, from, to }, 'backed up the database before migrating its schema'),
      onReplicaChange: ({ reads, state, lagSeconds }) =>
        app.logger[reads === 'replica' ? 'info' : 'warn'](
          { reads, replica: state, lagSeconds },
          reads === 'replica' ? 'reads on the read replica' : 'reads on the primary',
        ),
      // Once: every write is refused from now on, and /healthz says so, until a restart.
      onFlushFailed: (failure) =>
        app.logger.error(
          { err: failure.cause },
          'a flush of the database log to disk failed: writes are refused until the server is restarted',
        ),
    });
    app.decorate('storage', storage);
    // Registered first, so closed last: after the requests, deliveries and timers that use it.
    app.addHook('onClose', () => storage.close());
  },
  { name: 'storage', decorators: { fastify: ['config', 'logger'] } },
);
