import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { logsRequests } from './logger.js';
import { SecretsKeyError } from './outbox/secrets-key.js';
import { bootstrapIfEmpty } from './services/bootstrap.js';
import { onStopSignal, STOP_SIGNALS } from './stop-signals.js';
import { NewerSchemaError } from './storage/schema-version.js';

/** Exit code for a configuration (or a database) the server cannot start with, whatever the retries. */
const EXIT_CONFIG = 2;

/** Why listening failed, in words (the usual causes), else Node's own message. */
function listenFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return 'the port is already in use.';
  if (code === 'EACCES') return 'permission denied (ports below 1024 need privileges).';
  if (code === 'EADDRNOTAVAIL') return 'this machine has no such address.';
  return error instanceof Error ? error.message : String(error);
}

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Invalid configuration: ${error.message}\n`);
    process.exit(EXIT_CONFIG);
  }
}

/** The app, or one line saying why its database cannot be opened (unreachable, too new...). */
async function build(config: Config) {
  try {
    return await buildApp(config);
  } catch (error) {
    if (error instanceof SecretsKeyError) {
      process.stderr.write(`Cannot start: ${error.message}\n`);
      process.exit(EXIT_CONFIG);
    }
    const where = config.databaseUrl === undefined ? config.databasePath : 'DATABASE_URL';
    process.stderr.write(`Cannot open the database (${where}): ${describe(error)}\n`);
    // A newer schema stays newer: restarting (systemd's Restart=on-failure) cannot help.
    process.exit(error instanceof NewerSchemaError ? EXIT_CONFIG : 1);
  }
}

/** An error in one line; the client's errors for an unreachable server carry only a code. */
function describe(error: unknown): string {
  if (error instanceof AggregateError) return error.errors.map(describe).join('; ');
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return error.message || code || error.name;
}

const config = readConfig();
const app = await build(config);

if (config.adminToken !== undefined && config.adminToken.length < 16) {
  app.logger.warn('ADMIN_TOKEN is shorter than 16 characters; use a long random token');
}

// Long enough for the requests in flight and for deliveries, which each end within their timeout.
const shutdownDeadlineMs = config.outbound.timeoutMs + 10_000;
const grace = closeWithGrace(
  { delay: shutdownDeadlineMs, logger: app.logger, skip: [...STOP_SIGNALS] },
  async ({ signal, err }) => {
    if (err) app.logger.error({ err }, 'closing after an unexpected error');
    else if (signal) app.logger.info({ signal }, 'closing: finishing requests in flight');
    await app.close();
  },
);
onStopSignal((signal) => {
  app.logger.info({ signal }, 'closing: finishing requests in flight');
  void grace.close();
});

const bootstrap = () => bootstrapIfEmpty(app.storage, app.services, config.bootstrapApiKey);
// The operator's own key (BOOTSTRAP_API_KEY) works from the first request the server takes, so
// its account is made before listening; a generated key only once the server listens, so that a
// start that fails does not use up the key shown once.
const given = config.bootstrapApiKey === undefined ? undefined : await bootstrap();

let address: string;
try {
  address = await app.listen({ port: config.port, host: config.host });
} catch (error) {
  // One line an operator can act on, rather than a stack.
  process.stderr.write(`Cannot listen on ${config.host}:${config.port}: ${listenFailure(error)}\n`);
  await app.close();
  process.exit(1);
}

// Once listening (a start that fails says only why, in one line).
if (config.databaseUrl !== undefined && config.secretsKey === undefined) {
  // PostgreSQL keeps old row versions until VACUUM and never zeroes freed space.
  app.logger.warn(
    'SECRETS_KEY is not set: webhook tokens of pending notifications are stored as they are, and stay in PostgreSQL pages after delivery; set SECRETS_KEY (the same on every replica)',
  );
}

const boot = config.bootstrapApiKey === undefined ? await bootstrap() : given;
if (boot) {
  // Written to stdout, not to the log: the only time this key is ever shown.
  const lines = [
    'Empty database: created an account and a project named "default".',
    `  account id: ${boot.accountId}`,
    `  project id: ${boot.projectId}`,
    `  key id:     ${boot.keyId}`,
    boot.generatedApiKey
      ? `  API key:    ${boot.generatedApiKey}   (shown once; store it in a secret store)`
      : '  API key:    the value of BOOTSTRAP_API_KEY',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} else if (config.bootstrapApiKey !== undefined) {
  app.logger.info('BOOTSTRAP_API_KEY is ignored: the database already has accounts');
}
// Fastify says it itself when it logs requests; otherwise the application's logger does.
if (!logsRequests(config.logLevel)) app.logger.info(`Server listening at ${address}`);
