import type { ServerProcess } from './process.js';
import { startServerProcess } from './process.js';
import { ADMIN_TOKEN, type TestAccount } from './server.js';
import type { TestDatabase } from './test-database.js';

/**
 * Several server processes (`node build/server/main.js`, as `npm start` runs it) on one database,
 * as replicas behind a load balancer are, and what a client of them does over real HTTP.
 */

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** The environment every replica of a test shares. */
export function replicaEnv(
  database: TestDatabase,
  env: Record<string, string> = {},
): Record<string, string> {
  return {
    ...database.env,
    ADMIN_TOKEN,
    MAIL_DOMAIN: 'mail.example.test',
    // Nothing may reach the real Discord: port 9 (discard) refuses at once.
    DISCORD_API_ORIGIN: 'http://127.0.0.1:9',
    SLACK_WEBHOOK_ORIGIN: 'http://127.0.0.1:9',
    TEAMS_WEBHOOK_ORIGIN: 'http://127.0.0.1:9',
    // Many requests from one key: the rate limits (per replica) have tests of their own.
    RATE_LIMIT_INGEST_PER_MINUTE: '0',
    RATE_LIMIT_OTHER_PER_MINUTE: '0',
    ...env,
  };
}

/** `count` replicas started at once (they migrate and bootstrap the database together). */
export function startReplicas(
  database: TestDatabase,
  count: number,
  env: Record<string, string> = {},
): Promise<ServerProcess[]> {
  return Promise.all(
    Array.from({ length: count }, () => startServerProcess(replicaEnv(database, env))),
  );
}

/** One request over HTTP; the body parsed as JSON (an empty body as {}). */
export async function send(
  base: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.key === undefined ? {} : { 'x-api-key': options.key }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {}, headers: res.headers };
}

const admin = (base: string, method: string, path: string, body?: unknown) =>
  send(base, method, path, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

/** A new account with one project, made through one replica's admin API. */
export async function createAccount(base: string): Promise<TestAccount> {
  const created = await admin(base, 'POST', '/admin/accounts', { label: 'replicas' });
  const { accountId, apiKey } = created.body as { accountId: string; apiKey: string };
  const project = await admin(base, 'POST', `/admin/accounts/${accountId}/projects`, {
    name: 'replicated',
  });
  return { accountId, apiKey, projectId: (project.body as { id: string }).id };
}

/** Revokes a key through one replica's admin API. */
export function revokeKey(base: string, keyId: string): Promise<Answer> {
  return admin(base, 'DELETE', `/admin/keys/${keyId}`);
}

/** Creates a second key for an account through one replica's admin API. */
export async function createKey(
  base: string,
  accountId: string,
): Promise<{ keyId: string; apiKey: string }> {
  const res = await admin(base, 'POST', `/admin/accounts/${accountId}/keys`, { label: 'second' });
  return res.body as { keyId: string; apiKey: string };
}
