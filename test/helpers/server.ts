import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach } from 'vitest';
import { buildApp } from '../../server/app.js';
import { type Config, loadConfig } from '../../server/config.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestAccount {
  accountId: string;
  apiKey: string;
  projectId: string;
}

export interface TestServer {
  app: FastifyInstance;
  config: Config;
  dir: string;
  /** A new account with one project, created through the admin API. */
  account(): Promise<TestAccount>;
  /** A request as a client sends it: JSON body, optional API key. */
  call(
    method: InjectOptions['method'],
    url: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** Fresh temporary directory, removed by the caller. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'ci-stats-test-'));
}

export function testConfig(dir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    DATABASE_PATH: join(dir, 'stats.db'),
    ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    MAIL_DOMAIN: 'mail.example.test',
    // Nothing in the tests may reach the real Discord: port 9 (discard) refuses at once.
    DISCORD_API_ORIGIN: 'http://127.0.0.1:9',
    ...env,
  });
}

/** The real app on a real SQLite file in a temporary directory, driven with `app.inject`. */
export async function startTestServer(
  env: Record<string, string> = {},
  dir = tempDir(),
): Promise<TestServer> {
  const config = testConfig(dir, env);
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
    dir,
    call,
    async account() {
      const created = await admin('/admin/accounts', { label: 'test' });
      const { accountId, apiKey } = created.json() as { accountId: string; apiKey: string };
      const project = await admin(`/admin/accounts/${accountId}/projects`, {
        name: 'test project',
      });
      return { accountId, apiKey, projectId: (project.json() as { id: string }).id };
    },
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
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
