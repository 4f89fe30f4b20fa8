import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { type Db, openDatabase } from './db/database.js';
import { DebugAccessLog } from './plugins/access-log.js';
import { type Credentials, credentials } from './plugins/credentials.js';
import { installErrorHandling, installJsonParser } from './plugins/errors.js';
import { type ForwardingProvider, localForwarding } from './providers/forwarding.js';
import accountRoutes from './routes/account.js';
import adminRoutes from './routes/admin.js';
import emailForwardingRoutes from './routes/email-forwarding.js';
import healthRoutes from './routes/health.js';
import pagesiteRoutes from './routes/pagesite.js';
import statsRoutes from './routes/stats.js';
import { displayNameService } from './services/display-name.js';
import { forwardingService } from './services/forwarding.js';
import { ingestService } from './services/ingest.js';
import { KeyedLock } from './services/keyed-lock.js';
import { projectAccess } from './services/project-access.js';
import type { KeyOwner } from './store/accounts.js';
import { createStores, type Stores } from './store/index.js';

type Services = ReturnType<typeof createServices>;

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    stores: Stores;
    credentials: Credentials;
    services: Services;
  }
  interface FastifyRequest {
    /** Set by the API-key hook on every authenticated route. */
    account: KeyOwner;
  }
  interface FastifyContextConfig {
    /** The spec's 500 text for this endpoint, when it is not the generic one. */
    internalError?: string;
  }
}

export interface AppOptions {
  /** Defaults to the local-only provider. */
  forwarding?: ForwardingProvider;
}

function createServices(app: FastifyInstance, config: Config, options: AppOptions) {
  const { db, stores } = app;
  const provider = options.forwarding ?? localForwarding;
  const lock = new KeyedLock();
  const access = projectAccess(stores.projects);
  return {
    access,
    ingest: ingestService({ db, stores, access }),
    forwarding: forwardingService({
      db,
      stores,
      provider,
      syncContacts: false,
      lock,
      log: app.log,
    }),
    displayName: displayNameService({
      db,
      stores,
      mailDomain: config.mailDomain,
      removeOldAlias: provider !== localForwarding,
      lock,
    }),
  };
}

/** The whole API as a Fastify instance that does not listen: `main.ts` listens, tests inject. */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers["x-api-key"]', 'req.headers.authorization'],
    },
    logController: new DebugAccessLog(),
    bodyLimit: config.bodyLimit,
  });

  const db = openDatabase(config.databasePath);
  app.addHook('onClose', async () => db.close());
  const stores = createStores(db);
  app.decorate('db', db);
  app.decorate('stores', stores);
  app.decorate('credentials', credentials(db, stores.accounts));
  app.decorate('services', createServices(app, config, options));
  app.decorateRequest('account', null as unknown as KeyOwner);

  installJsonParser(app);
  installErrorHandling(app);

  await app.register(healthRoutes);
  await app.register(emailForwardingRoutes);
  await app.register(pagesiteRoutes);
  await app.register(accountRoutes);
  await app.register(statsRoutes);
  if (config.adminToken) await app.register(adminRoutes, { token: config.adminToken });
  return app;
}
