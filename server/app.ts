import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { Commits } from './db/commits.js';
import { type Db, openDatabase } from './db/database.js';
import { OutboundHttp } from './outbound/http.js';
import { HOUR_MS } from './outbound/retry-policy.js';
import { jobExecutor } from './outbox/executor.js';
import { OutboxWorker } from './outbox/worker.js';
import { DebugAccessLog } from './plugins/access-log.js';
import { clientErrorHandler } from './plugins/client-errors.js';
import { type Credentials, credentials } from './plugins/credentials.js';
import { installErrorHandling, installJsonParser } from './plugins/errors.js';
import { brevoContacts } from './providers/brevo.js';
import type { ContactsProvider } from './providers/contacts.js';
import { discordNotifier } from './providers/discord.js';
import { type ForwardingProvider, localForwarding } from './providers/forwarding.js';
import { improvMxForwarding } from './providers/improvmx.js';
import accountRoutes from './routes/account.js';
import adminRoutes from './routes/admin.js';
import emailForwardingRoutes from './routes/email-forwarding.js';
import healthRoutes from './routes/health.js';
import pagesiteRoutes from './routes/pagesite.js';
import statsRoutes from './routes/stats.js';
import { displayNameService } from './services/display-name.js';
import { forwardingService } from './services/forwarding.js';
import { IDEMPOTENCY_TTL_MS, idempotency } from './services/idempotency.js';
import { ingestService } from './services/ingest.js';
import { KeyedLock } from './services/keyed-lock.js';
import { projectAccess } from './services/project-access.js';
import type { KeyOwner } from './store/accounts.js';
import { createStores, type Stores } from './store/index.js';

type Services = ReturnType<typeof createServices>;

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    /** Every write a client is answered for goes through here (group commit). */
    commits: Commits;
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

interface Providers {
  forwarding: ForwardingProvider | undefined;
  contacts: ContactsProvider | undefined;
}

/** The external services the configuration selects; undefined means "none". */
function createProviders(http: OutboundHttp, config: Config): Providers {
  const { forwarding, contacts } = config;
  return {
    forwarding:
      forwarding.provider === 'improvmx' ? improvMxForwarding(http, forwarding) : undefined,
    contacts: contacts.provider === 'brevo' ? brevoContacts(http, contacts) : undefined,
  };
}

function createServices(
  app: FastifyInstance,
  config: Config,
  providers: Providers,
  aliasLock: KeyedLock,
) {
  const { commits, stores } = app;
  const lock = new KeyedLock();
  const access = projectAccess(stores.projects);
  const once = idempotency(stores.idempotency);
  return {
    access,
    idempotency: once,
    ingest: ingestService({ stores, access, commits, idempotency: once }),
    forwarding: forwardingService({
      commits,
      stores,
      provider: providers.forwarding ?? localForwarding,
      mailDomain: config.mailDomain,
      syncContacts: providers.contacts !== undefined,
      lock,
      aliasLock,
      log: app.log,
    }),
    displayName: displayNameService({
      commits,
      stores,
      mailDomain: config.mailDomain,
      removeOldAlias: providers.forwarding !== undefined,
      lock,
    }),
  };
}

/** The whole API as a Fastify instance that does not listen: `main.ts` listens, tests inject. */
export async function buildApp(config: Config): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers["x-api-key"]', 'req.headers.authorization'],
    },
    logController: new DebugAccessLog(),
    clientErrorHandler,
    bodyLimit: config.bodyLimit,
  });

  const db = openDatabase(config.databasePath);
  // DURABILITY=full keeps synchronous=FULL: a 2xx means the write is on disk. Group commit makes
  // that affordable; `normal` answers before the flush (see README).
  if (config.durability === 'normal') db.pragma('synchronous = NORMAL');
  const commits = new Commits(db);
  const stores = createStores(db);
  const http = new OutboundHttp(config.outbound.timeoutMs);
  const providers = createProviders(http, config);
  app.decorate('db', db);
  app.decorate('commits', commits);
  app.decorate('stores', stores);
  app.decorate('credentials', credentials(db, stores.accounts));
  const aliasLock = new KeyedLock();
  app.decorate('services', createServices(app, config, providers, aliasLock));
  app.decorateRequest('account', null as unknown as KeyOwner);

  const worker = new OutboxWorker({
    store: stores.outbox,
    write: (work) => commits.run(work),
    execute: jobExecutor({
      discord: discordNotifier(http, config.outbound.discordApiOrigin),
      ...providers,
      aliasLock,
      aliasInUse: stores.profiles.isForwarding,
    }),
    policy: {
      baseMs: config.outbound.retryBaseMs,
      capMs: HOUR_MS,
      maxAttempts: config.outbound.maxAttempts,
    },
    log: app.log.child({ component: 'outbox' }),
  });
  // Jobs are sent once the change that queued them has committed.
  commits.onCommit(() => {
    if (stores.outbox.takeQueued()) worker.wake();
  });
  app.addHook('onReady', async () => worker.start());

  // Idempotency answers older than their TTL go, once at start and then every hour.
  const purgeAnswers = () =>
    commits
      .run(() => stores.idempotency.purge(Date.now() - IDEMPOTENCY_TTL_MS))
      .catch((error) => app.log.error({ err: error }, 'could not purge idempotency keys'));
  let purge: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    void purgeAnswers();
    purge = setInterval(purgeAnswers, HOUR_MS).unref();
  });

  // Node closes idle keep-alive connections once, when close() starts; a connection whose request
  // was still running would then hold the shutdown for its whole keep-alive timeout. Sweep again
  // until the server has closed, so each connection goes as soon as its last response is sent.
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    sweep = setInterval(() => app.server.closeIdleConnections(), 50).unref();
  });
  // After the requests in flight: let deliveries finish, then close the database.
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    clearInterval(purge);
    await worker.stop();
    await http.close();
    commits.drain();
    db.close();
  });

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
