import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { HttpError } from './errors.js';
import { adminService } from './services/admin.js';
import { createStores } from './store/index.js';

/**
 * Offline administration of DATABASE_PATH (safe while the server runs: SQLite serialises the
 * writes, and the server notices revoked keys at once). Prints one JSON object on stdout.
 */
const USAGE = `usage: npm run admin -- <command> [options]
  account:create [--label <text>]                  -> { accountId, apiKey, keyId }
  key:create     --account <accountId>             -> { keyId, apiKey }
  key:revoke     --key <keyId>                     -> { keyId, revoked }
  project:create --account <accountId> --name <n>  -> { id, name, created_at }
  project:list   --account <accountId>             -> { projects }
The database is DATABASE_PATH (default ./data/stats.db).`;

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
      },
    });
  } catch (error) {
    return fail((error as Error).message, 2);
  }
})();

const required = (name: 'account' | 'key' | 'name'): string =>
  values[name] ?? fail(`--${name} is required`, 2);

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error), 2);
}

const db = openDatabase(config.databasePath);
const stores = createStores(db);
// The CLI's connection keeps synchronous=FULL: each write is on disk when it returns.
const admin = adminService(stores, async (work) => work(), stores.accounts.revokeKey);

const commands: Record<string, () => Promise<unknown>> = {
  'account:create': () => admin.createAccount(values.label),
  'key:create': () => admin.createKey(required('account')),
  'key:revoke': async () => {
    const keyId = required('key');
    await admin.revokeKey(keyId);
    return { keyId, revoked: true };
  },
  'project:create': () => admin.createProject(required('account'), required('name')),
  'project:list': async () => ({ projects: admin.listProjects(required('account')) }),
};

const command = commands[positionals[0] ?? ''];
if (!command || positionals.length !== 1)
  fail(`unknown command: ${positionals.join(' ') || '(none)'}`, 2);
try {
  process.stdout.write(`${JSON.stringify(await command())}\n`);
} catch (error) {
  fail(error instanceof HttpError ? error.message : String(error), 1);
} finally {
  db.close();
}
