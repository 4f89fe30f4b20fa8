import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AdminError } from '../../contract/admin.js';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { openDatabase } from '../../server/storage/sqlite/sqlite-database.js';
import { migrations } from '../../server/storage/sqlite/sqlite-migrations.js';
import { withoutIssues } from '../helpers/issues.js';
import { run } from '../helpers/process.js';
import {
  ADMIN_TOKEN,
  eachTestServer,
  type TestAccount,
  type TestServer,
  tempDir,
} from '../helpers/server.js';
import { onPostgres } from '../helpers/test-database.js';

/** Projects an account creates for itself, and the one name per account rule. */

let server: TestServer;
let me: TestAccount;

// The race below needs one key's requests to run at once: no cap on its requests in progress
// (key-concurrency.test.ts tests the cap).
eachTestServer((started) => ({ server, me } = started), { RATE_LIMIT_OTHER_CONCURRENCY: '0' });

const create = (name: unknown, key = me.apiKey) =>
  server.call('POST', Paths.createProject, { key, body: { name } });
const adminCreate = (name: string) =>
  server.call('POST', `/admin/accounts/${me.accountId}/projects`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    body: { name },
  });

describe('POST /stats/create-project', () => {
  it('creates a project of the caller’s, trimmed, listed by E6', async () => {
    const res = await create('  api gateway ');
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(String),
      name: 'api gateway',
      created_at: expect.any(String),
    });
    const listed = (await server.call('GET', Paths.getProjects, { key: me.apiKey })).json()
      .projects;
    expect(listed.map((p: { name: string }) => p.name)).toEqual(['test project', 'api gateway']);
    // It is the caller's: ingest works on it.
    const event = await server.call('POST', Paths.ingestEvents, {
      key: me.apiKey,
      body: { projectId: res.json().id, eventType: 'build' },
    });
    expect(event.statusCode).toBe(200);
  });

  it('a name the account already uses, in any case, is 409; another account may use it', async () => {
    expect((await create('Web')).statusCode).toBe(201);
    for (const name of ['web', 'WEB', ' wEb ']) {
      const res = await create(name);
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 409,
        body: { error: OwnError.projectNameTaken },
      });
    }
    expect((await create('Ärger')).statusCode).toBe(201);
    expect((await create('ärger')).statusCode).toBe(409);
    const other = await server.account();
    expect((await create('web', other.apiKey)).statusCode).toBe(201);
  });

  it('concurrent creations of one name: one wins, the others get 409', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => create('race')));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([
      201, 409, 409, 409, 409, 409, 409, 409,
    ]);
  });

  it('refuses a missing, empty or too long name', async () => {
    for (const [name, error] of [
      [undefined, AdminError.nameRequired],
      ['   ', AdminError.nameRequired],
      [7, AdminError.nameInvalid],
      ['x'.repeat(101), AdminError.nameInvalid],
    ] as const) {
      const res = await create(name);
      expect({ status: res.statusCode, body: withoutIssues(res.json()) }).toEqual({
        status: 400,
        body: { error },
      });
    }
    expect((await create('x'.repeat(100))).statusCode).toBe(201);
    expect(
      (
        await server.call('POST', Paths.createProject, { key: 'wrong', body: { name: 'x' } })
      ).json(),
    ).toEqual({
      error: SpecError.unauthorizedStats,
    });
  });

  it('the admin API refuses duplicates the same way', async () => {
    expect((await adminCreate('Shared')).statusCode).toBe(201);
    const res = await adminCreate('shared');
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 409,
      body: { error: OwnError.projectNameTaken },
    });
    expect((await create('SHARED')).statusCode).toBe(409);
  });
});

// SQLite only: it starts from SQLite's schema 3 (PostgreSQL's schema had unique names from its start).
describe.skipIf(onPostgres)('the migration to unique names', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the projects of a database that already had duplicate names', async () => {
    const path = join(dir, 'stats.db');
    const old = openDatabase(path, 'full', migrations.slice(0, 3));
    old.exec(`INSERT INTO accounts VALUES ('a', NULL, '2026-01-01T00:00:00.000Z');
      INSERT INTO projects VALUES ('p1', 'a', 'Web', '2026-01-01T00:00:00.000Z');
      INSERT INTO projects VALUES ('p2', 'a', 'web', '2026-01-02T00:00:00.000Z');
      INSERT INTO projects VALUES ('p3', 'a', 'Other', '2026-01-03T00:00:00.000Z');`);
    old.close();
    const db = openDatabase(path);
    const rows = db.prepare('SELECT id, name, name_key FROM projects ORDER BY id').all();
    db.close();
    expect(rows).toEqual([
      { id: 'p1', name: 'Web', name_key: 'web' },
      { id: 'p2', name: 'web', name_key: 'web\u0000p2' },
      { id: 'p3', name: 'Other', name_key: 'other' },
    ]);
    // The offline CLI refuses the name too.
    const again = await run(
      ['build/server/admin-cli.js', 'project:create', '--account', 'a', '--name', 'WEB'],
      { DATABASE_PATH: path },
    );
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr.split('\n')[0] as string)).toEqual({
      error: OwnError.projectNameTaken,
    });
  });
});
