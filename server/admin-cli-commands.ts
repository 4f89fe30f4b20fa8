import type * as z from 'zod/mini';
import {
  AdminCreateProjectRequest,
  CreateAccountRequest,
  createAccountErrorText,
  createProjectErrorText,
} from '../contract/admin.js';
import { CreateApiKeyRequest } from '../contract/api-keys.js';
import { SpecError } from '../contract/error-texts.js';
import type { Config } from './config.js';
import type { adminService } from './services/admin-service.js';
import { backupDatabase, restoreDatabase } from './storage/database-backup.js';

/** The options any admin command may take (each command's help says which it uses). */
export const OPTIONS = {
  label: { type: 'string' },
  account: { type: 'string' },
  key: { type: 'string' },
  name: { type: 'string' },
  scope: { type: 'string' },
  project: { type: 'string', multiple: true },
  create: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface Values {
  label?: string;
  account?: string;
  key?: string;
  name?: string;
  scope?: string;
  project?: string[];
}

/** A usage error (exit code 2) or a refused request (exit code 1), said in one line. */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

interface CommandText {
  /** Its arguments, as `--help` shows them. */
  usage: string;
  /** What it does and what it prints, in a few words. */
  summary: string;
}

/** A command on the data, through the admin service (the storage opened and migrated). */
export interface ServiceCommand extends CommandText {
  run(admin: ReturnType<typeof adminService>, values: Values): Promise<unknown>;
}

/**
 * A command on the database as a whole (backup, restore): given the configuration and its one
 * argument, a file; the storage is not opened for it (a restore must find the database unused,
 * and neither may migrate what it copies).
 */
export interface DatabaseCommand extends CommandText {
  file(config: Pick<Config, 'databasePath' | 'databaseUrl'>, file: string): Promise<unknown>;
}

export type AdminCommand = ServiceCommand | DatabaseCommand;

export const isDatabaseCommand = (command: AdminCommand): command is DatabaseCommand =>
  'file' in command;

const required = (values: Values, name: 'account' | 'key' | 'name'): string => {
  const value = values[name];
  if (value === undefined) throw new CommandError(`--${name} is required`, 2);
  return value;
};

/** A command's options, checked with the admin API's own request schema. */
function parsed<T>(
  schema: z.ZodMiniType<T>,
  input: unknown,
  text: (paths: PropertyKey[][], input: unknown) => string,
): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new CommandError(
    text(
      result.error.issues.map((issue) => issue.path),
      input,
    ),
    1,
  );
}

/** Every admin command: the same admin service and request schemas as the admin API. */
export const COMMANDS: Record<string, AdminCommand> = {
  'account:create': {
    usage: '[--label <text>]',
    summary: 'Create an account with its first key. Prints { accountId, apiKey, keyId }.',
    run: (admin, values) =>
      admin.createAccount(
        parsed(CreateAccountRequest, { label: values.label }, createAccountErrorText)?.label ??
          undefined,
      ),
  },
  'account:list': {
    usage: '',
    summary: 'List the accounts. Prints { accounts: [{ accountId, label, created_at }] }.',
    run: async (admin) => ({ accounts: await admin.listAccounts() }),
  },
  'key:create': {
    usage: '--account <accountId> [--label <text>] [--scope full|ingest] [--project <id>]...',
    summary:
      'Create an API key (an ingest key limited to the projects given). Prints { keyId, apiKey }.',
    run: async (admin, values) => {
      const spec = parsed(
        CreateApiKeyRequest,
        { label: values.label, scope: values.scope, projectIds: values.project },
        () => SpecError.invalidBody,
      );
      const { keyId, apiKey } = await admin.createKey(required(values, 'account'), {
        label: spec.label ?? null,
        scope: spec.scope,
        projectIds: spec.projectIds ?? null,
      });
      return { keyId, apiKey };
    },
  },
  'key:list': {
    usage: '--account <accountId>',
    summary:
      "List an account's keys, never a key or its hash. Prints { keys: [{ id, label, prefix, scope, ... }] }.",
    run: async (admin, values) => ({ keys: await admin.listKeys(required(values, 'account')) }),
  },
  'key:revoke': {
    usage: '--key <keyId>',
    summary: 'Revoke a key (also when already revoked). Prints { keyId, revoked }.',
    run: async (admin, values) => {
      const keyId = required(values, 'key');
      await admin.revokeKey(keyId);
      return { keyId, revoked: true };
    },
  },
  'project:create': {
    usage: '--account <accountId> --name <name>',
    summary: 'Create a project. Prints { id, name, created_at }.',
    run: (admin, values) => {
      const accountId = required(values, 'account');
      const { name } = parsed(
        AdminCreateProjectRequest,
        { name: required(values, 'name') },
        createProjectErrorText,
      );
      return admin.createProject(accountId, name);
    },
  },
  backup: {
    usage: '<file>',
    summary:
      "Write a consistent copy of the live database to <file> (a new file) while servers keep serving: SQLite's online backup, or pg_dump --format=custom on PostgreSQL. Prints { file, bytes, ... }.",
    file: backupDatabase,
  },
  restore: {
    usage: '<file>',
    summary:
      'Replace the database with the backup in <file>, checked first (integrity, a schema this version knows); refused while a server has the database open. The old database is kept aside. Prints { schema, previous, ... }.',
    file: restoreDatabase,
  },
  'project:list': {
    usage: '--account <accountId>',
    summary: "List an account's projects. Prints { projects }.",
    run: async (admin, values) => ({
      projects: await admin.listProjects(required(values, 'account')),
    }),
  },
};

const DATABASE_NOTE = `The database is DATABASE_URL (PostgreSQL) when set, else DATABASE_PATH (SQLite, default
./data/stats.db); a SQLite file that does not exist yet is created only with --create (so a
mistyped path is an error, not a new empty database). Each command prints one JSON object on
stdout; an error is one JSON object on stderr (exit code 1; a usage error, exit code 2).`;

/** `help`, `--help` or no command: every command in one line each. */
export function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, { usage }]) =>
    `  ${name.padEnd(width)}  ${usage}`.trimEnd(),
  );
  return [
    'usage: npm run -s admin -- <command> [options]',
    '       npm run -s admin -- <command> --help',
    '',
    'Commands:',
    ...lines,
    '  help [command]',
    '',
    DATABASE_NOTE,
  ].join('\n');
}

/** `<command> --help` or `help <command>`. */
export function commandHelp(name: string): string {
  const command = COMMANDS[name] as AdminCommand;
  return [
    `usage: npm run -s admin -- ${name} ${command.usage}`.trimEnd(),
    '',
    command.summary,
    '',
    DATABASE_NOTE,
  ].join('\n');
}
