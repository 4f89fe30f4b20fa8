import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { checkSqliteBackup } from '../../server/storage/sqlite/sqlite-backup.js';
import { executeSql, selectColumn, selectRows } from '../helpers/database.js';
import { run } from '../helpers/process.js';
import { seededRandom, storeEvent, storeMetric } from '../helpers/seed-records.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import {
  adminSql,
  createTestDatabase,
  onPostgres,
  type TestDatabase,
  tempDir,
} from '../helpers/test-database.js';

/**
 * `npm run admin -- backup <file>` and `restore <file>` (docs/operations.md, Backup and
 * restore), on the backend of the Vitest project: a backup taken while the server takes writes
 * holds everything acknowledged before it started, and restores into a fresh server with the
 * same statistics; restore refuses a database in use and a file it cannot vouch for, and then
 * changes nothing.
 */

const admin = (database: TestDatabase, ...args: string[]) =>
  run(['build/server/admin-cli.js', ...args], database.env);

const errorOf = (stderr: string) => JSON.parse(stderr.split('\n')[0] as string).error as string;

const HOUR = 3_600_000;

/** Servers and databases of the test, closed and dropped after it. */
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function server(database?: TestDatabase): Promise<TestServer> {
  // Ingest keeps going for as long as the backup takes, which on a busy machine is over the
  // default minute's budget: the limits are not what this file tests.
  const started = await startTestServer({ RATE_LIMIT_INGEST_PER_MINUTE: '1000000' }, database);
  cleanup.push(() => started.close());
  return started;
}

/** PostgreSQL keeps the replaced database under another name: dropped with the test. */
function dropAfter(name: string | null | undefined) {
  if (name) cleanup.push(() => adminSql().unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** What the statistics API answers for a project over a fixed range. */
async function statistics(
  on: TestServer,
  me: TestAccount,
  projectId: string,
  from: number,
  to: number,
) {
  const range = `projectId=${projectId}&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&buckets=48`;
  const get = async (path: string, extra = '') => {
    const res = await on.call('GET', `${path}?${range}${extra}`, { key: me.apiKey });
    expect(res.statusCode, path).toBe(200);
    return res.json();
  };
  return {
    builds: await get('/stats/get-build-summary'),
    duration: await get('/stats/get-metric-series', '&key=duration_ms'),
    keys: (
      await on.call('GET', `/stats/get-metric-keys?projectId=${projectId}`, { key: me.apiKey })
    ).json(),
  };
}

describe('backup and restore', () => {
  it('a backup under load holds every record acknowledged before it; restored, the statistics are the same', async () => {
    const source = await server();
    const me = await source.account();
    const created = await source.call('POST', `/admin/accounts/${me.accountId}/projects`, {
      body: { name: 'history' },
      headers: { authorization: 'Bearer test-admin-token-0123456789' },
    });
    const history = (created.json() as { id: string }).id;

    // A day of history at chosen times, hourly statuses and durations.
    const random = seededRandom(29);
    const start = Date.UTC(2026, 9, 1);
    for (let i = 0; i < 240; i++) {
      const at = start + Math.floor(random() * 24 * HOUR);
      const status = ['success', 'failure', 'cancelled'][Math.floor(random() * 3)] as string;
      await storeEvent(source, history, at, 'build', { status, branch: i % 2 ? 'main' : 'dev' });
      await storeMetric(source, history, at, { duration_ms: Math.round(random() * 10_000) });
    }

    // Ingest that keeps going while the backup runs: each acknowledged id with when it was.
    const acknowledged: { id: string; at: number; kind: 'event' | 'metric' }[] = [];
    let loading = true;
    const writer = async (n: number) => {
      for (let i = 0; loading; i++) {
        const metric = (i + n) % 2 === 0;
        const res = await source.call(
          'POST',
          metric ? '/stats/ingest-metrics' : '/stats/ingest-events',
          {
            key: me.apiKey,
            body: metric
              ? { projectId: me.projectId, payload: { duration_ms: i } }
              : { projectId: me.projectId, eventType: 'build', payload: { status: 'success' } },
          },
        );
        expect(res.statusCode).toBe(200);
        acknowledged.push({ id: res.json().id, at: Date.now(), kind: metric ? 'metric' : 'event' });
      }
    };
    const writers = [writer(0), writer(1), writer(2), writer(3)];
    while (acknowledged.length < 200) await new Promise((resolve) => setTimeout(resolve, 10));

    const file = join(source.dir, 'backup.db');
    const backupStarted = Date.now();
    const backup = await admin(source.database, 'backup', file);
    const during = acknowledged.filter((record) => record.at > backupStarted).length;
    loading = false;
    await Promise.all(writers);
    expect(backup.code, backup.stderr).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ file, bytes: expect.any(Number) });
    // The server kept acknowledging writes while the backup ran.
    expect(during).toBeGreaterThan(0);

    const target = await createTestDatabase();
    const restored = await admin(target, 'restore', file);
    expect(restored.code, restored.stderr).toBe(0);
    dropAfter(JSON.parse(restored.stdout).previous);
    const fresh = await server(target);

    const before = acknowledged.filter((record) => record.at < backupStarted);
    const eventIds = new Set(
      await selectColumn(target, 'SELECT id FROM events WHERE project_id = ?', me.projectId),
    );
    const metricIds = new Set(
      await selectColumn(target, 'SELECT id FROM metrics WHERE project_id = ?', me.projectId),
    );
    for (const record of before) {
      expect((record.kind === 'event' ? eventIds : metricIds).has(record.id), record.id).toBe(true);
    }

    // The history project took no writes since: its statistics must be the same on both.
    expect(await statistics(fresh, me, history, start, start + 24 * HOUR)).toEqual(
      await statistics(source, me, history, start, start + 24 * HOUR),
    );
    // The loaded project: the restored server's build counts are the records it holds.
    const summary = (
      await fresh.call(
        'GET',
        `/stats/get-build-summary?projectId=${me.projectId}&from=${new Date(backupStarted - HOUR).toISOString()}&to=${new Date(Date.now() + HOUR).toISOString()}&buckets=1`,
        { key: me.apiKey },
      )
    ).json() as { buckets: { success: number }[] };
    expect(summary.buckets.reduce((sum, bucket) => sum + bucket.success, 0)).toBe(eventIds.size);
    expect(eventIds.size + metricIds.size).toBeGreaterThanOrEqual(before.length);
  }, 120_000);

  it('restore refuses a database in use and changes nothing', async () => {
    const live = await server();
    await live.account();
    const other = await createTestDatabase();
    const donor = await server(other);
    await donor.account();
    const file = join(live.dir, 'donor.backup');
    expect((await admin(other, 'backup', file)).code).toBe(0);

    const accounts = () => selectColumn(live.database, 'SELECT id FROM accounts ORDER BY id');
    const before = await accounts();
    const refused = await admin(live.database, 'restore', file);
    expect(refused.code).toBe(1);
    expect(errorOf(refused.stderr)).toMatch(/is in use.*stop the server/);
    expect(await accounts()).toEqual(before);
    // The server goes on serving its own database.
    expect((await live.call('GET', '/healthz')).statusCode).toBe(200);
  }, 60_000);

  it('restore checks the file first: not a backup, or a newer schema, is refused and nothing changes', async () => {
    const target = await createTestDatabase();
    const first = await startTestServer({}, target);
    const me = await first.account();
    await first.app.close();
    cleanup.push(() => target.drop());
    const accounts = () => selectColumn(target, 'SELECT id FROM accounts');

    const garbage = join(target.dir, 'garbage.backup');
    writeFileSync(garbage, 'SQLite format 3\0 but not really'.repeat(200));
    const notBackup = await admin(target, 'restore', garbage);
    expect(notBackup.code).toBe(1);
    expect(errorOf(notBackup.stderr)).toMatch(
      onPostgres ? /pg_restore failed/ : /not a SQLite database|cannot be opened|integrity/,
    );

    const missing = await admin(target, 'restore', join(target.dir, 'nothing-here'));
    expect(missing.code).toBe(1);
    expect(errorOf(missing.stderr)).toMatch(/no backup at/);

    // A backup a newer version wrote (its schema ahead of ours).
    const newer = await createTestDatabase();
    await (await startTestServer({}, newer)).app.close();
    await executeSql(
      newer,
      "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', '2030-01-01')",
    );
    const newerFile = join(target.dir, 'newer.backup');
    expect((await admin(newer, 'backup', newerFile)).code).toBe(0);
    await newer.drop();
    const refused = await admin(target, 'restore', newerFile);
    expect(refused.code).toBe(1);
    expect(errorOf(refused.stderr)).toMatch(/schema version 999 was written by a newer version/);

    expect(await accounts()).toEqual([me.accountId]);
    if (!onPostgres) expect(existsSync(`${target.location}.restoring`)).toBe(false);
    else {
      const names =
        await adminSql()`SELECT datname FROM pg_database WHERE datname LIKE ${`${target.name?.slice(0, 40)}%`}`;
      expect(names.map((row) => row.datname)).toEqual([target.name]);
    }
  }, 60_000);

  it('backup refuses to overwrite a file, and usage errors exit 2', async () => {
    const live = await server();
    await live.account();
    const file = join(live.dir, 'taken');
    writeFileSync(file, 'keep me');
    const refused = await admin(live.database, 'backup', file);
    expect(refused.code).toBe(1);
    expect(errorOf(refused.stderr)).toMatch(/exists/);
    expect((await admin(live.database, 'backup')).code).toBe(2);
    expect((await admin(live.database, 'restore', 'a', 'b')).code).toBe(2);
    expect(await selectRows(live.database, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});

describe('scheduled backups (BACKUP_DIR, BACKUP_EVERY, BACKUP_KEEP)', () => {
  it.skipIf(onPostgres)(
    'back up every BACKUP_EVERY and keep the newest BACKUP_KEEP',
    async () => {
      const dir = join(tempDir(), 'backups');
      const live = await startTestServer({ BACKUP_DIR: dir, BACKUP_EVERY: '1s', BACKUP_KEEP: '2' });
      cleanup.push(() => live.close());
      const me = await live.account();
      const first = await live.call('POST', '/stats/ingest-events', {
        key: me.apiKey,
        body: { projectId: me.projectId, eventType: 'build' },
      });
      const copies = () =>
        readdirSync(dir)
          .filter((name) => name.endsWith('.db'))
          .sort();
      await expect.poll(() => (existsSync(dir) ? copies().length : 0), { timeout: 15_000 }).toBe(2);
      // A third turn replaces the oldest: never more than BACKUP_KEEP.
      const before = copies();
      await expect.poll(() => copies()[1] !== before[1], { timeout: 15_000 }).toBe(true);
      expect(copies()).toHaveLength(2);
      expect(copies()).toContain(before[1]);
      const newest = join(dir, copies()[1] as string);
      expect(checkSqliteBackup(newest).schema).toBeGreaterThan(0);
      const restored = await createTestDatabase();
      cleanup.push(() => restored.drop());
      const put = await admin(restored, 'restore', newest);
      expect(put.code, put.stderr).toBe(0);
      expect(await selectColumn(restored, 'SELECT id FROM events')).toEqual([first.json().id]);
    },
    60_000,
  );

  it('BACKUP_DIR is refused with PostgreSQL, and a bad BACKUP_EVERY names itself', () => {
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db', BACKUP_DIR: '/tmp/b' }),
    ).toThrow(/BACKUP_DIR works with SQLite only/);
    expect(() => loadConfig({ BACKUP_DIR: '/tmp/b', BACKUP_EVERY: '10' })).toThrow(
      /BACKUP_EVERY must be a number and a unit/,
    );
    expect(loadConfig({ BACKUP_DIR: '/tmp/b', BACKUP_EVERY: '6h' }).backup).toEqual({
      dir: '/tmp/b',
      everyMs: 6 * 3_600_000,
      keep: 7,
    });
  });
});
