import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  type AdminCommand,
  COMMANDS,
  CommandError,
  commandHelp,
  isDatabaseCommand,
  OPTIONS,
  overview,
  type ServiceCommand,
} from './admin-cli-commands.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { type AnyDomainError, DomainError } from './domain/domain-errors.js';
import { describeDomainError } from './http/api/domain-error-mapping.js';
import { adminService } from './services/admin-service.js';
import { apiKeyService } from './services/api-key-service.js';
import { credentials } from './services/credentials.js';
import { projectService } from './services/project-service.js';
import { openStorage } from './storage/open-storage.js';

/**
 * Offline administration of the configured database (safe while the server runs: the database
 * serialises the writes, and the server notices revoked keys at once). The commands are
 * admin-cli-commands.ts; this is the process around them: arguments, help, the database, output.
 */

function fail(message: string, code: number, usage = overview()): never {
  process.stderr.write(`${JSON.stringify({ error: message })}\n`);
  if (code === 2) process.stderr.write(`${usage}\n`);
  process.exit(code);
}

function help(text: string): never {
  process.stdout.write(`${text}\n`);
  process.exit(0);
}

const { positionals, values } = (() => {
  try {
    return parseArgs({ allowPositionals: true, options: OPTIONS });
  } catch (error) {
    return fail((error as Error).message, 2);
  }
})();

const [name, ...rest] = positionals;
const known = (command: string | undefined): command is string =>
  command !== undefined && Object.hasOwn(COMMANDS, command);

// Help needs no configuration and no database.
if (name === 'help' || (name === undefined && values.help)) {
  if (rest.length === 0) help(overview());
  if (rest.length === 1 && known(rest[0])) help(commandHelp(rest[0]));
  fail(`unknown command: ${rest.join(' ')}`, 2);
}
if (!known(name)) fail(`unknown command: ${positionals.join(' ') || '(none)'}`, 2);
if (values.help) help(commandHelp(name));
const chosen = COMMANDS[name] as AdminCommand;
const wanted = isDatabaseCommand(chosen) ? 1 : 0;
if (rest.length !== wanted) {
  fail(
    wanted === 1 ? `${name} takes one file` : `unknown command: ${positionals.join(' ')}`,
    2,
    wanted === 1 ? commandHelp(name) : overview(),
  );
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error), 2);
}

if (isDatabaseCommand(chosen)) {
  try {
    process.stdout.write(`${JSON.stringify(await chosen.file(config, rest[0] as string))}\n`);
    process.exit(0);
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error), 1, commandHelp(name));
  }
}
const command = chosen as ServiceCommand;

// A PostgreSQL database exists before it is named (the operator creates it); only a SQLite file
// would be made up by a typo.
if (config.databaseUrl === undefined && !values.create && !existsSync(config.databasePath)) {
  fail(
    `no database at ${config.databasePath}; check DATABASE_PATH, or pass --create to create it`,
    1,
  );
}

// The CLI serves no pages: it reads and writes the primary only, whatever DATABASE_REPLICA_URL says.
const primaryOnly = { ...config, replica: { ...config.replica, url: undefined } };
const storage = await openStorage(primaryOnly, {
  onBackup: ({ file, from, to }) =>
    process.stderr.write(
      `backed up the database to ${file} before migrating it (schema ${from} to ${to})\n`,
    ),
}).catch((error: unknown) =>
  fail(`cannot open the database: ${error instanceof Error ? error.message : String(error)}`, 1),
);
const admin = adminService(
  storage,
  apiKeyService(storage, credentials(storage)),
  projectService(storage),
);

try {
  process.stdout.write(`${JSON.stringify(await command.run(admin, values))}\n`);
} catch (error) {
  await storage.close();
  if (error instanceof CommandError) fail(error.message, error.exitCode, commandHelp(name));
  fail(
    error instanceof DomainError
      ? describeDomainError(error as AnyDomainError).text
      : String(error),
    1,
  );
}
await storage.close();
