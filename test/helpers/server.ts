import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach } from 'vitest';
import { buildApp } from '../../server/app.js';
import { type Config, loadConfig } from '../../server/config.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export { tempDir } from './test-database.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestAccount {
  accountId: string;
  apiKey: string;
  projectId: string;
}

export interface TestServer {
  app: FastifyInstance;
  config: Config;
  /** The database it runs on (a SQLite file or a PostgreSQL database, as the project says). */
  database: TestDatabase;
  /** A temporary directory of its own. */
  dir: string;
  /** A new account with one project, created through the admin API. */
  account(): Promise<TestAccount>;
  /** A request as a client sends it: JSON body, optional API key. */
  call(
    method: InjectOptions['method'],
    url: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  /** Closes the app and drops its database. */
  close(): Promise<void>;
}

/** The environment the tests run the server with, pointed at `database`. */
export function testEnv(database: TestDatabase, env: Record<string, string> = {}) {
  return {
    ...database.env,
    ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    MAIL_DOMAIN: 'mail.example.test',
    // Nothing in the tests may reach the real Discord: port 9 (discard) refuses at once.
    DISCORD_API_ORIGIN: 'http://127.0.0.1:9',
    SLACK_WEBHOOK_ORIGIN: 'http://127.0.0.1:9',
    TEAMS_WEBHOOK_ORIGIN: 'http://127.0.0.1:9',
    ...env,
  };
}

export function testConfig(database: TestDatabase, env: Record<string, string> = {}): Config {
  return loadConfig(testEnv(database, env));
}

/**
 * The real app on a real database of its own, driven with `app.inject`. Given `database` (one an
 * earlier server of the test ran on), it opens that one again instead.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  database?: TestDatabase,
): Promise<TestServer> {
  const db = database ?? (await createTestDatabase());
  const config = testConfig(db, env);
  const app = await buildApp(config);

  const call: TestServer['call'] = (method, url, { key, body, headers = {} } = {}) =>
    app.inject({
      method,
      url,
      headers: {
        ...(key === undefined ? {} : { 'x-api-key': key }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined
        ? {}
        : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });

  const admin = (url: string, body: unknown) =>
    call('POST', url, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  return {
    app,
    config,
    database: db,
    dir: db.dir,
    call,
    async account() {
      const created = await admin(`${config.basePath}/admin/accounts`, { label: 'test' });
      const { accountId, apiKey } = created.json() as { accountId: string; apiKey: string };
      const project = await admin(`${config.basePath}/admin/accounts/${accountId}/projects`, {
        name: 'test project',
      });
      return { accountId, apiKey, projectId: (project.json() as { id: string }).id };
    },
    async close() {
      await app.close();
      await db.drop();
    },
  };
}

/**
 * A fresh server with one account for each test of a file: started before each test (handed to
 * `use`), closed after it. `eachTestServer((started) => ({ server, me } = started))`.
 */
export function eachTestServer(
  use: (started: { server: TestServer; me: TestAccount }) => void,
  env: Record<string, string> = {},
): void {
  let server: TestServer | undefined;
  beforeEach(async () => {
    server = await startTestServer(env);
    use({ server, me: await server.account() });
  });
  afterEach(() => server?.close());
}
