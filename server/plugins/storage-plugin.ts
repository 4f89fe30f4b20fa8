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
    const storage = await openStorage(
      app.config,
      ({ file, from, to }) =>
        app.logger.info({ file, from, to }, 'backed up the database before migrating its schema'),
      ({ reads, state, lagSeconds }) =>
        app.logger[reads === 'replica' ? 'info' : 'warn'](
          { reads, replica: state, lagSeconds },
          reads === 'replica' ? 'reads on the read replica' : 'reads on the primary',
        ),
    );
    app.decorate('storage', storage);
    // Registered first, so closed last: after the requests, deliveries and timers that use it.
    app.addHook('onClose', () => storage.close());
  },
  { name: 'storage', decorators: { fastify: ['config', 'logger'] } },
);
