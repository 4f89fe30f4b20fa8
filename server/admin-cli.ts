import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type * as z from 'zod/mini';
import {
  AdminCreateProjectRequest,
  CreateAccountRequest,
  createAccountErrorText,
  createProjectErrorText,
} from '../contract/admin.js';
import { CreateApiKeyRequest } from '../contract/api-keys.js';
import { SpecError } from '../contract/error-texts.js';
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
 * serialises the writes, and the server notices revoked keys at once). The same admin service
 * and request schemas as the admin API. Prints one JSON object on stdout.
 */
const USAGE = `usage: npm run admin -- <command> [options]
  account:create [--label <text>]                  -> { accountId, apiKey, keyId }
  key:create     --account <accountId> [--label <text>] [--scope full|ingest] [--project <id>]...
                                                   -> { keyId, apiKey }
  key:revoke     --key <keyId>                     -> { keyId, revoked }
  project:create --account <accountId> --name <n>  -> { id, name, created_at }
  project:list   --account <accountId>             -> { projects }
  account:list                                     -> { accounts: [{ accountId, label, created_at }] }
  key:list       --account <accountId>             -> { keys: [{ id, label, prefix, scope, ... }] }
The database is DATABASE_URL (PostgreSQL) when set, else DATABASE_PATH (SQLite, default
./data/stats.db); a SQLite file that does not exist yet is created only with --create (so a
mistyped path is an error, not a new empty database).`;

function fail(message: string, code: number): never {
  process.stderr.write(`${JSON.stringify({ error: message })}\n`);
  if (code === 2) process.stderr.write(`${USAGE}\n`);
  process.exit(code);
}

const { positionals, values } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        label: { type: 'string' },
        account: { type: 'string' },
        key: { type: 'string' },
        name: { type: 'string' },
        scope: { type: 'string' },
        project: { type: 'string', multiple: true },
        create: { type: 'boolean' },
      },
    });
  } catch (error) {
    return fail((error as Error).message, 2);
  }
})();

const required = (name: 'account' | 'key' | 'name'): string =>
  values[name] ?? fail(`--${name} is required`, 2);

/** A command's options, checked with the admin API's own request schema. */
function parsed<T>(
  schema: z.ZodMiniType<T>,
  input: unknown,
  text: (paths: PropertyKey[][], input: unknown) => string,
): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  return fail(
    text(
      result.error.issues.map((issue) => issue.path),
      input,
    ),
    1,
  );
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error), 2);
}

const COMMANDS = [
  'account:create',
  'account:list',
  'key:create',
  'key:list',
  'key:revoke',
  'project:create',
  'project:list',
];
if (positionals.length !== 1 || !COMMANDS.includes(positionals[0] as string)) {
  fail(`unknown command: ${positionals.join(' ') || '(none)'}`, 2);
}

// A PostgreSQL database exists before it is named (the operator creates it); only a SQLite file
// would be made up by a typo.
if (config.databaseUrl === undefined && !values.create && !existsSync(config.databasePath)) {
  fail(
    `no database at ${config.databasePath}; check DATABASE_PATH, or pass --create to create it`,
    1,
  );
}

const storage = await openStorage(config).catch((error: unknown) =>
  fail(`cannot open the database: ${error instanceof Error ? error.message : String(error)}`, 1),
);
const admin = adminService(
  storage,
  apiKeyService(storage, credentials(storage)),
  projectService(storage),
);

const commands: Record<string, () => Promise<unknown>> = {
  'account:create': () =>
    admin.createAccount(
      parsed(CreateAccountRequest, { label: values.label }, createAccountErrorText)?.label ??
        undefined,
    ),
  'key:create': async () => {
    const spec = parsed(
      CreateApiKeyRequest,
      { label: values.label, scope: values.scope, projectIds: values.project },
      () => SpecError.invalidBody,
    );
    const { keyId, apiKey } = await admin.createKey(required('account'), {
      label: spec.label ?? null,
      scope: spec.scope,
      projectIds: spec.projectIds ?? null,
    });
    return { keyId, apiKey };
  },
  'key:revoke': async () => {
    const keyId = required('key');
    await admin.revokeKey(keyId);
    return { keyId, revoked: true };
  },
  'project:create': () => {
    const accountId = required('account');
    const { name } = parsed(
      AdminCreateProjectRequest,
      { name: required('name') },
      createProjectErrorText,
    );
    return admin.createProject(accountId, name);
  },
  'project:list': async () => ({ projects: await admin.listProjects(required('account')) }),
  'account:list': async () => ({ accounts: await admin.listAccounts() }),
  'key:list': async () => ({ keys: await admin.listKeys(required('account')) }),
};

const command = commands[positionals[0] as string] as () => Promise<unknown>;
try {
  process.stdout.write(`${JSON.stringify(await command())}\n`);
} catch (error) {
  fail(
    error instanceof DomainError
      ? describeDomainError(error as AnyDomainError).text
      : String(error),
    1,
  );
} finally {
  await storage.close();
}
