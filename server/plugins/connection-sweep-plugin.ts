import fp from 'fastify-plugin';

/**
 * Node closes idle keep-alive connections once, when close() starts; a connection whose request
 * was still running would then hold the shutdown for its whole keep-alive timeout. Sweep again
 * until the server has closed, so each connection goes as soon as its last response is sent.
 */
export const connectionSweepPlugin = fp(
  async (app) => {
    let sweep: NodeJS.Timeout | undefined;
    app.addHook('preClose', async () => {
      sweep = setInterval(() => app.server.closeIdleConnections(), 50).unref();
    });
    app.addHook('onClose', async () => clearInterval(sweep));
  },
  { name: 'connection-sweep' },
);
