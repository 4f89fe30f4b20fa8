import type postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import type { ReplicaStatus } from '../../server/storage/read-routing/replica-status.js';
import { FormClient } from '../helpers/form-client.js';
import { type PrivatePostgres, startPrivatePostgres } from '../helpers/private-postgres.js';
import { type PrivateReplica, startPrivateReplica } from '../helpers/private-replica.js';
import {
  ADMIN_TOKEN,
  startTestServer,
  type TestAccount,
  type TestServer,
} from '../helpers/server.js';
import { connect, type TestDatabase, tempDir } from '../helpers/test-database.js';

/**
 * DATABASE_REPLICA_URL with a real streaming replica: a private primary (initdb, on a free port)
 * and a copy of it made by `pg_basebackup -R`, started beside it. Replay is paused to make the
 * two differ, so each answer shows which server gave it: a reader's GET is the replica's, the
 * writer's own read right after its write the primary's; past the lag limit, or with the replica
 * stopped, reads fall back to the primary and /healthz says so, and come back when it recovers.
 */

/**
 * Long enough for the reads of a paused replica to be done within it on a loaded machine: a
 * dashboard page alone may wait up to PAGE_JUDGING_WAIT_MS (1 s) for judging, and with a limit
 * of 1 s a full run's load pushed the reads that must come from the replica past it (failed CI).
 */
const MAX_LAG_SECONDS = 4;

let primary: PrivatePostgres;
let replica: PrivateReplica;
let onReplica: postgres.Sql;
let server: TestServer;
let me: TestAccount;
/** A second key of the same account: another caller, that wrote nothing. */
let readerKey: string;

beforeAll(async () => {
  primary = await startPrivatePostgres();
  const admin = connect(primary.url('postgres'));
  try {
    await admin.unsafe('CREATE DATABASE stats');
  } finally {
    await admin.end({ timeout: 1 });
  }
  replica = await startPrivateReplica(primary, { logStatements: true });
  onReplica = connect(replica.url('stats'));
  const database: TestDatabase = {
    backend: 'postgres',
    env: { DATABASE_URL: primary.url('stats') },
    dir: tempDir(),
    location: primary.url('stats'),
    name: 'stats',
    reusable: false,
    drop: async () => undefined,
  };
  server = await startTestServer(
    {
      DATABASE_REPLICA_URL: replica.url('stats'),
      REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
    },
    database,
  );
  me = await server.account();
  const key = await server.call('POST', `/admin/accounts/${me.accountId}/keys`, {
    body: { label: 'reader' },
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  readerKey = (key.json() as { apiKey: string }).apiKey;
  // The account, its keys and project replayed before the reads begin.
  await until(async () => (await health()).reads === 'replica');
}, 60_000);

afterAll(async () => {
  await server?.app.close();
  await onReplica?.end({ timeout: 1 });
  replica?.remove();
  primary?.stop();
});

async function until(done: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function health(): Promise<ReplicaStatus> {
  const res = await server.call('GET', Paths.health);
  expect(res.statusCode).toBe(200);
  const body = res.json() as { status: string; replica: ReplicaStatus };
  expect(body.status).toBe('ok');
  return body.replica;
}

/** The event types of the project as `key` reads them back. */
async function eventTypes(key: string): Promise<string[]> {
  const res = await server.call('GET', `${Paths.getEvents}?projectId=${me.projectId}`, { key });
  expect(res.statusCode).toBe(200);
  return (res.json() as { events: { eventType: string }[] }).events.map((e) => e.eventType);
}

async function ingest(eventType: string, key = me.apiKey): Promise<void> {
  const res = await server.call('POST', Paths.ingestEvents, {
    key,
    body: { projectId: me.projectId, eventType },
  });
  expect(res.statusCode).toBe(200);
}

async function pauseReplay(): Promise<void> {
  await onReplica`SELECT pg_wal_replay_pause()`;
  await until(async () => {
    const [row] = await onReplica<{ state: string }[]>`
      SELECT pg_get_wal_replay_pause_state() AS state`;
    return row?.state === 'paused';
  });
}

it('serves GET reads from the replica, under its own application_name', async () => {
  await ingest('before');
  await until(async () => (await eventTypes(readerKey)).includes('before'));
  // The replica's statement log, not pg_stat_activity: that keeps a connection's last statement
  // only, and the lag checks may have run on the same connection since.
  const reads = replica.statements().filter((line) => line.startsWith('ci-stats-replica-reads|'));
  expect(reads.some((line) => /FROM events/i.test(line))).toBe(true);
});

it("reads a caller's own write at once from the primary; another caller's read stays on the replica", async () => {
  await pauseReplay();
  await ingest('while-paused');
  // The writer, at once: the primary (the replica has not replayed it).
  expect(await eventTypes(me.apiKey)).toContain('while-paused');
  // Another key of the account, within the limit: the replica, which lacks it.
  const reader = await eventTypes(readerKey);
  expect(reader).toContain('before');
  expect(reader).not.toContain('while-paused');
});

it('falls back to the primary once the replica lags past REPLICA_MAX_LAG_SECONDS, and returns after', async () => {
  // Replay is still paused and the primary has a commit the replica lacks: its lag grows.
  await until(async () => (await health()).state === 'lagging');
  const lagging = await health();
  expect(lagging.reads).toBe('primary');
  expect(lagging.lagSeconds).toBeGreaterThan(MAX_LAG_SECONDS);
  expect(await eventTypes(readerKey)).toContain('while-paused');

  await onReplica`SELECT pg_wal_replay_resume()`;
  await until(async () => (await health()).reads === 'replica');
  expect((await health()).state).toBe('ok');
});

it('reads the primary while the replica is down, /healthz says so, and uses it again once back', async () => {
  await onReplica.end({ timeout: 1 });
  replica.stop();
  await ingest('replica-down');
  // The primary answers: a read that fails on the replica runs again there, and the checks
  // (every quarter of the limit) mark it down.
  expect(await eventTypes(readerKey)).toContain('replica-down');
  const down = await health();
  expect(down).toEqual({ reads: 'primary', state: 'down', lagSeconds: null });

  replica.start();
  onReplica = connect(replica.url('stats'));
  await until(async () => (await health()).reads === 'replica');
  await pauseReplay();
  await ingest('after-return');
  // On the replica again: another caller does not see what it has not replayed.
  expect(await eventTypes(readerKey)).not.toContain('after-return');
  await onReplica`SELECT pg_wal_replay_resume()`;
});

it("serves the dashboard's project page from the replica too", async () => {
  const browser = new FormClient(server);
  expect((await browser.signIn(me.apiKey)).statusCode).toBe(303);
  const page = () => browser.get(`/dashboard/projects/${me.projectId}`);
  await ingest('page-before');
  await until(async () => (await page()).body.includes('page-before'));
  await pauseReplay();
  // Written by a key: the session is another caller, whose page the replica serves.
  await ingest('page-while-paused');
  const paused = await page();
  expect(paused.statusCode).toBe(200);
  expect(paused.body).toContain('page-before');
  expect(paused.body).not.toContain('page-while-paused');
  await onReplica`SELECT pg_wal_replay_resume()`;
  await until(async () => (await page()).body.includes('page-while-paused'));
});
