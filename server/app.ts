import accepts from 'accepts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { type Config, configuredSecrets } from './config.js';
import { DebugAccessLog } from './http/access-log.js';
import { apiContext } from './http/api/api-context.js';
import { jsonErrorHandler, jsonNotFound } from './http/api/error-handler.js';
import { ProjectGate } from './http/heavy-reads/project-gate.js';
import { pageContext } from './http/pages/page-context.js';
import { createPageKit } from './http/pages/page-kit.js';
import { STATIC_PAGE_POLICY, securityHeaders } from './http/pages/security-headers.js';
import { allowedMethods, guardTransport, transportOptions } from './http/transport.js';
import { createLogger, logsRequests } from './logger.js';
import { connectionSweepPlugin } from './plugins/connection-sweep-plugin.js';
import { maintenancePlugin } from './plugins/maintenance-plugin.js';
import { outboundPlugin } from './plugins/outbound-plugin.js';
import { outboxWorkerPlugin } from './plugins/outbox-worker-plugin.js';
import { scheduledBackupPlugin } from './plugins/scheduled-backup-plugin.js';
import { secretsPlugin } from './plugins/secrets-plugin.js';
import { servicesPlugin } from './plugins/services-plugin.js';
import { storagePlugin } from './plugins/storage-plugin.js';
import { inReadScope } from './storage/read-routing/read-scope.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    /** The application's logger; `app.log` is Fastify's, attached only to log requests. */
    logger: Logger;
    /** Per project, the heavy reads at once (pages, badges, series...): docs/security.md. */
    heavyReads: ProjectGate;
  }
}

/**
 * The whole server as a Fastify instance that does not listen: `main.ts` listens, tests inject.
 * Infrastructure plugins first (each declares what it decorates and needs; they close in reverse
 * order, the storage last), then the JSON API in its own context.
 */
export async function buildApp(config: Config): Promise<FastifyInstance> {
  const logger = createLogger(config.logLevel, configuredSecrets(config));
  const app = Fastify({
    ...(logsRequests(config.logLevel)
      ? { loggerInstance: logger as FastifyBaseLogger, logController: new DebugAccessLog() }
      : { logger: false }),
    ...transportOptions(config),
    bodyLimit: config.bodyLimit,
    // No limit on a plugin's start: the storage plugin migrates the schema, which on a large
    // database takes minutes (an index rebuilt over 50 M test results: about 2 min, BENCHMARKS.md),
    // and Fastify's default of 10 s made such a start fail and roll back at every attempt. The
    // server answers nothing (not even /healthz) until it has started, as before.
    pluginTimeout: 0,
    ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
  });
  app.decorate('config', config);
  app.decorate('logger', logger);
  app.decorate(
    'heavyReads',
    new ProjectGate(config.heavyReads.perProject, config.heavyReads.queue),
  );
  guardTransport(app);
  // Each request reads in a scope of its own: with a read replica, the storage sends a GET's
  // reads there unless its caller (named once authenticated) wrote lately. Only then: on Node 20
  // the first AsyncLocalStorage.run turns on promise hooks for the whole process, which made every
  // E8 request about a tenth dearer (BENCHMARKS.md, issue 31); without a replica every read goes to
  // the primary, which is what a request with no scope does.
  if (config.replica.url !== undefined) {
    app.addHook('onRequest', (request, _reply, done) => inReadScope(request.method, done));
  }

  await app.register(storagePlugin);
  await app.register(secretsPlugin);
  await app.register(outboundPlugin);
  await app.register(servicesPlugin);
  await app.register(outboxWorkerPlugin);
  await app.register(maintenancePlugin);
  await app.register(scheduledBackupPlugin);
  await app.register(connectionSweepPlugin);

  // The API and the pages, under BASE_PATH when it is set (a reverse proxy's path; '' at the
  // root): every route, the API's areas as the pages, moves under it at once.
  const kit = createPageKit(config.basePath);
  await app.register(
    async (site) => {
      await site.register(apiContext);
      await site.register(pageContext, { kit });
    },
    { prefix: config.basePath },
  );

  // Outside every context: JSON, except for a browser asking for a page that is not there.
  app.setErrorHandler(jsonErrorHandler);
  app.setNotFoundHandler({ preHandler: securityHeaders(STATIC_PAGE_POLICY) }, (request, reply) => {
    if (accepts(request.raw).type(['json', 'html']) !== 'html') return jsonNotFound(request, reply);
    const allow = allowedMethods(request);
    if (allow.length > 0) reply.code(405).header('allow', allow.join(', '));
    else reply.code(404);
    return reply
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(allow.length > 0 ? kit.errorHtml(405, request.id) : kit.notFoundHtml);
  });
  return app;
}
