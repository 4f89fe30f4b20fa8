import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { selectRows } from '../helpers/database.js';
import { run } from '../helpers/process.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/test-database.js';

const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('admin API', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.close());

  const admin = (method: 'POST' | 'DELETE' | 'GET', url: string, body?: unknown) =>
    server.call(method, url, { body, headers: bearer });

  it('refuses a missing or wrong token with 401 Unauthorized', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong' },
      { authorization: ADMIN_TOKEN },
      { authorization: `Basic ${ADMIN_TOKEN}` },
    ];
    for (const headers of attempts) {
      const res = await server.call('POST', '/admin/accounts', { body: {}, headers });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 401,
        body: { error: 'Unauthorized' },
      });
    }
  });

  it('takes the Bearer scheme in any case', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      const res = await server.call('POST', '/admin/accounts', {
        body: {},
        headers: { authorization: `${scheme} ${ADMIN_TOKEN}` },
      });
      expect({ scheme, status: res.statusCode }).toEqual({ scheme, status: 201 });
    }
  });

  it('creates accounts, keys and projects; revokes keys', async () => {
    const created = await admin('POST', '/admin/accounts', { label: 'ci' });
    expect(created.statusCode).toBe(201);
    const { accountId, apiKey } = created.json();
    expect(apiKey).toMatch(/^cis_[A-Za-z0-9_-]{43}$/);

    const project = await admin('POST', `/admin/accounts/${accountId}/projects`, { name: ' web ' });
    expect(project.statusCode).toBe(201);
    expect(project.json()).toEqual({
      id: expect.any(String),
      name: 'web',
      created_at: expect.any(String),
    });
    const listed = await server.call('GET', '/stats/get-projects', { key: apiKey });
    expect(listed.json()).toEqual({ projects: [project.json()] });

    // Rotation: create a second key, then revoke the first.
    const second = await admin('POST', `/admin/accounts/${accountId}/keys`);
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual({
      keyId: expect.any(String),
      apiKey: expect.stringMatching(/^cis_/),
    });
    const keys = (await admin('GET', `/admin/accounts/${accountId}/projects`)).json();
    expect(keys.projects).toHaveLength(1);

    const firstKeyId = created.json().keyId;
    expect((await admin('DELETE', `/admin/keys/${firstKeyId}`)).statusCode).toBe(204);
    expect((await admin('DELETE', `/admin/keys/${firstKeyId}`)).statusCode).toBe(204);
    expect((await server.call('GET', '/stats/get-projects', { key: apiKey })).statusCode).toBe(401);
    expect(
      (await server.call('GET', '/stats/get-projects', { key: second.json().apiKey })).statusCode,
    ).toBe(200);
  });

  it('stores keys only as hashes', async () => {
    const { apiKey } = (await admin('POST', '/admin/accounts', {})).json();
    const rows = await selectRows(server.database, 'SELECT * FROM api_keys');
    expect(JSON.stringify(rows)).not.toContain(apiKey);
    expect(JSON.stringify(rows)).not.toContain(apiKey.slice(12));
  });

  it('answers 404 for unknown accounts and keys, 400 for bad input', async () => {
    expect((await admin('POST', '/admin/accounts/nope/keys')).json()).toEqual({
      error: 'Account not found.',
    });
    expect((await admin('POST', '/admin/accounts/nope/projects', { name: 'x' })).statusCode).toBe(
      404,
    );
    expect((await admin('DELETE', '/admin/keys/nope')).json()).toEqual({ error: 'Key not found.' });
    const { accountId } = (await admin('POST', '/admin/accounts', {})).json();
    expect((await admin('POST', `/admin/accounts/${accountId}/projects`, {})).statusCode).toBe(400);
    expect(
      (await admin('POST', `/admin/accounts/${accountId}/projects`, { name: 'x'.repeat(101) }))
        .statusCode,
    ).toBe(400);
    expect((await admin('POST', '/admin/accounts', { label: 5 })).statusCode).toBe(400);
  });

  it('is absent when ADMIN_TOKEN is unset', async () => {
    const plain = await startTestServer({ ADMIN_TOKEN: '' });
    try {
      const res = await plain.call('POST', '/admin/accounts', { body: {}, headers: bearer });
      expect(res.statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('admin CLI', () => {
  // On PostgreSQL an empty database, as an operator creates it: the CLI migrates it.
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase({ empty: true });
  });
  afterEach(() => database.drop());

  const cli = async (...args: string[]) => {
    const result = await run(['build/server/admin-cli.js', ...args], database.env);
    return { ...result, json: result.stdout ? JSON.parse(result.stdout) : undefined };
  };

  it('manages accounts, keys and projects offline, one JSON object per command', async () => {
    const account = await cli('account:create', '--label', 'team', '--create');
    expect(account.code).toBe(0);
    expect(account.stdout.trim().split('\n')).toHaveLength(1);
    const { accountId } = account.json;

    const project = await cli('project:create', '--account', accountId, '--name', 'api');
    expect(project.json).toMatchObject({ name: 'api' });
    expect((await cli('project:list', '--account', accountId)).json).toEqual({
      projects: [project.json],
    });

    const key = await cli('key:create', '--account', accountId);
    expect(key.json).toEqual({ keyId: expect.any(String), apiKey: expect.stringMatching(/^cis_/) });
    expect((await cli('key:revoke', '--key', key.json.keyId)).json).toEqual({
      keyId: key.json.keyId,
      revoked: true,
    });
  });

  it('reports errors on stderr with a non-zero exit', async () => {
    expect((await cli('account:list', '--create')).json).toEqual({ accounts: [] });
    const unknown = await cli('key:create', '--account', 'nope');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr.split('\n')[0] as string)).toEqual({
      error: 'Account not found.',
    });
    const usage = await cli('frobnicate');
    expect(usage.code).toBe(2);
    const missing = await cli('project:create', '--account', 'x');
    expect(missing.code).toBe(2);
  });

  it('lists accounts and keys, never a key or its hash', async () => {
    const account = await cli('account:create', '--label', 'team', '--create');
    const other = await cli('account:create');
    expect((await cli('account:list')).json).toEqual({
      accounts: [
        { accountId: account.json.accountId, label: 'team', created_at: expect.any(String) },
        { accountId: other.json.accountId, label: null, created_at: expect.any(String) },
      ],
    });
    const key = await cli('key:create', '--account', account.json.accountId, '--label', 'ci');
    const listed = await cli('key:list', '--account', account.json.accountId);
    expect(listed.code).toBe(0);
    expect(listed.json.keys.map((k: { id: string; label: string }) => [k.id, k.label])).toEqual([
      [account.json.keyId, null],
      [key.json.keyId, 'ci'],
    ]);
    expect(listed.stdout).not.toContain(account.json.apiKey);
    expect(listed.stdout).not.toContain(key.json.apiKey);
    const unknown = await cli('key:list', '--account', 'nope');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr.split('\n')[0] as string)).toEqual({
      error: 'Account not found.',
    });
  });

  // PostgreSQL's counterpart of the next test: a mistyped database name is an error, not a database.
  it.runIf(onPostgres)(
    'a DATABASE_URL naming no database is one JSON error and exit 1',
    async () => {
      const url = new URL(database.location);
      url.pathname = `${url.pathname}_typo`;
      const typo = await run(['build/server/admin-cli.js', 'account:list'], {
        DATABASE_URL: url.toString(),
      });
      expect(typo.code).toBe(1);
      expect(typo.stdout).toBe('');
      expect(JSON.parse(typo.stderr.split('\n')[0] as string).error).toMatch(/does not exist/);
    },
  );

  // SQLite only: a mistyped DATABASE_PATH would create a new file; PostgreSQL creates no database.
  it.skipIf(onPostgres)(
    'refuses to create a database at a path that does not exist, unless given --create',
    async () => {
      const typo = await cli('account:list');
      expect(typo.code).toBe(1);
      expect(JSON.parse(typo.stderr.split('\n')[0] as string).error).toMatch(/--create/);
      expect(existsSync(database.location)).toBe(false);
      expect((await cli('account:list', '--create')).code).toBe(0);
      expect(existsSync(database.location)).toBe(true);
      expect((await cli('account:list')).json).toEqual({ accounts: [] });
    },
  );
});
