import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { StorageUnavailable } from '../../server/domain/domain-errors.js';
import { openPgStorage } from '../../server/storage/postgres/pg-storage.js';
import type { NewKey, Storage } from '../../server/storage/storage.js';
import {
  adminSql,
  connect as connectSql,
  createTestDatabase,
  type TestDatabase,
} from '../helpers/test-database.js';

/**
 * What the PostgreSQL backend adds to the behaviour the whole suite checks on both backends: two
 * Storage instances (two replicas) on one database. Locks, flips, unique names and site updates
 * hold across them; revocations and page changes reach the other within a second; and while the
 * database cannot be reached every call fails with StorageUnavailable, until it is back.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const key = (label: string): NewKey => {
  const hash = createHash('sha256').update(randomUUID()).digest('hex');
  return { digest: { hash, prefix: hash.slice(0, 10) }, label, scope: 'full', projectIds: null };
};

/** Waits until `condition` holds, or fails after `ms`. */
async function within(ms: number, condition: () => boolean | Promise<boolean>): Promise<number> {
  const start = performance.now();
  while (!(await condition())) {
    if (performance.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await sleep(10);
  }
  return performance.now() - start;
}

/** Once nothing new has been heard for a moment: `keysMayHaveChanged` is false. */
const settled = (storage: Storage) =>
  within(3_000, async () => {
    storage.keysMayHaveChanged();
    await sleep(50);
    return !storage.keysMayHaveChanged();
  });

const LEASE_MS = 30_000;
let database: TestDatabase;
let a: Storage;
let b: Storage;

beforeAll(async () => {
  database = await createTestDatabase();
  a = await openPgStorage({ url: database.location, leaseMs: LEASE_MS });
  b = await openPgStorage({ url: database.location, leaseMs: LEASE_MS });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await database?.drop();
});

describe('two replicas on one database', () => {
  it('lock runs tasks of one key one after another across both; other keys at once', async () => {
    let inside = 0;
    let most = 0;
    const task = async () => {
      inside += 1;
      most = Math.max(most, inside);
      await sleep(15);
      inside -= 1;
    };
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).lock('account:one', task)),
    );
    expect(most).toBe(1);

    // The same measure sees overlap when the keys differ: it can tell.
    most = 0;
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).lock(`account:${i}`, task)),
    );
    expect(most).toBeGreaterThan(1);
  });

  it('nested locks (an account, then its alias) from both at once never deadlock', async () => {
    const order: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? a : b).lock(`account:${i % 3}`, () =>
          (i % 2 === 0 ? a : b).lock('alias:shared', async () => {
            order.push(`in ${i}`);
            await sleep(5);
            order.push(`out ${i}`);
          }),
        ),
      ),
    );
    expect(order).toHaveLength(16);
    for (let i = 0; i < order.length; i += 2) {
      expect(order[i + 1]).toBe(order[i]?.replace('in', 'out'));
    }
  });

  it('a failing task releases the lock for the other replica', async () => {
    await expect(
      a.lock('account:fails', async () => {
        throw new Error('task failed');
      }),
    ).rejects.toThrow('task failed');
    await expect(b.lock('account:fails', async () => 'ran')).resolves.toBe('ran');
  });

  it('visibility flips from both at once are never lost', async () => {
    const { accountId } = await a.accounts.create(null, key('flips'));
    const flips = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).sites.toggleVisibility(accountId)),
    );
    expect(flips.filter(Boolean)).toHaveLength(10);
    expect((await b.sites.get(accountId)).visibility).toBe(false);
  });

  it('one display name, two accounts, two replicas: exactly one gets it', async () => {
    for (let round = 0; round < 5; round++) {
      const first = await a.accounts.create(null, key('one'));
      const second = await b.accounts.create(null, key('two'));
      const name = `taken-${round}-${randomUUID().slice(0, 8)}`;
      const results = await Promise.all([
        a.profiles.setDisplayName(first.accountId, name),
        b.profiles.setDisplayName(second.accountId, name),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const owners = await Promise.all([
        a.profiles.get(first.accountId),
        a.profiles.get(second.accountId),
      ]);
      expect(owners.filter((profile) => profile?.displayName === name)).toHaveLength(1);
    }
  });

  it('a name taken, inside a transaction, is false and the transaction goes on', async () => {
    const holder = await a.accounts.create(null, key('holder'));
    const other = await a.accounts.create(null, key('other'));
    await a.profiles.setDisplayName(holder.accountId, 'held-name');
    const project = await b.transaction(async (tx) => {
      expect(await tx.profiles.setDisplayName(other.accountId, 'held-name')).toBe(false);
      expect(await tx.profiles.setDisplayName(other.accountId, 'free-name')).toBe(true);
      return tx.projects.create(other.accountId, 'after', 'after');
    });
    expect(project?.name).toBe('after');
    expect((await a.profiles.get(other.accountId))?.displayName).toBe('free-name');
  });

  it('one project name from both at once: one project, the other undefined', async () => {
    const { accountId } = await a.accounts.create(null, key('projects'));
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all([
        a.projects.create(accountId, `Build ${round}`, `build ${round}`),
        b.projects.create(accountId, `build ${round}`, `build ${round}`),
      ]);
      expect(results.filter((project) => project !== undefined)).toHaveLength(1);
    }
    expect(await a.projects.list(accountId)).toHaveLength(5);
  });

  it('site updates from both at once each apply to what the other saved', async () => {
    const { accountId } = await a.accounts.create(null, key('site'));
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a : b).sites.update(accountId, (current) => ({
          ...current,
          blocks: [
            ...current.blocks,
            { id: `b${i}`, type: 'text' as const, content: `${i}`, enabled: true },
          ],
        })),
      ),
    );
    const site = await a.sites.get(accountId);
    expect(site.blocks.map((block) => block.id).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `b${i}`).sort(),
    );
  });

  it('revoking twice keeps the first time; one’s own revoke finds nothing the second time', async () => {
    const { accountId, keyId } = await a.accounts.create(null, key('revoked'));
    const sql = connectSql(database.location);
    try {
      expect(await a.accounts.revokeKey(keyId)).toBe(true);
      const [first] = await sql`SELECT revoked_at FROM api_keys WHERE id = ${keyId}`;
      await sleep(5);
      expect(await b.accounts.revokeKey(keyId)).toBe(true);
      const [second] = await sql`SELECT revoked_at FROM api_keys WHERE id = ${keyId}`;
      expect(second?.revoked_at).toBe(first?.revoked_at);

      const own = await a.accounts.createKey(accountId, key('own'));
      expect(await a.accounts.revokeKey(own, accountId)).toBe(true);
      expect(await b.accounts.revokeKey(own, accountId)).toBe(false);
      expect(await b.accounts.revokeKey(keyId, 'someone-else')).toBe(false);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('a revocation on one replica is known to the other within a second', async () => {
    const { keyId } = await a.accounts.create(null, key('revocation'));
    await settled(b);
    await a.accounts.revokeKey(keyId);
    const took = await within(1_000, () => b.keysMayHaveChanged());
    expect(took).toBeLessThan(1_000);
    // Asked again without a new revocation: nothing changed.
    expect(b.keysMayHaveChanged()).toBe(false);
  });

  it('a page change on one replica moves the other’s pagesVersion, after it is visible', async () => {
    const { accountId } = await a.accounts.create(null, key('pages'));
    await a.profiles.setDisplayName(accountId, 'pages-name');
    const seen = b.pagesVersion();
    await a.sites.toggleVisibility(accountId);
    await within(1_000, () => b.pagesVersion() !== seen);
    expect((await b.sites.findVisible('pages-name'))?.site.visibility).toBe(true);

    // The replica's own change moves its version once it has committed.
    const own = b.pagesVersion();
    await b.sites.update(accountId, (current) => ({ ...current, bio: 'new' }));
    expect(b.pagesVersion()).not.toBe(own);
  });

  it('jobs queued on one replica wake the other’s workers', async () => {
    let woken = 0;
    b.onJobsQueued(() => {
      woken += 1;
    });
    const sql = connectSql(database.location);
    try {
      await sql`SELECT pg_notify('ci_stats_outbox', '')`;
      await within(1_000, () => woken > 0);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('its LISTEN connection killed, a replica counts everything as changed and hears again', async () => {
    b.keysMayHaveChanged();
    const version = b.pagesVersion();
    // Every connection to this database but the admin's: the pools reconnect on their next query.
    await adminSql()`
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = ${database.name ?? ''} AND pid <> pg_backend_pid()`;
    await within(3_000, () => b.pagesVersion() !== version);
    await within(1_000, () => b.keysMayHaveChanged());
    // And it hears new revocations again.
    const { keyId } = await a.accounts.create(null, key('after-kill'));
    await settled(b);
    await a.accounts.revokeKey(keyId);
    await within(1_000, () => b.keysMayHaveChanged());
  });
});

/** A TCP proxy to PostgreSQL that can be cut (connections reset, new ones refused) and restored. */
class CuttableProxy {
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  port = 0;

  async up(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(5432, '127.0.0.1');
      const pair = [client, upstream];
      for (const socket of pair) {
        this.#sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => {
          for (const end of pair) end.destroy();
          this.#sockets.delete(socket);
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

describe('the database away', () => {
  it('every call fails with StorageUnavailable, nothing crashes, and it reconnects by itself', async () => {
    const proxy = new CuttableProxy();
    await proxy.up();
    const url = new URL(database.location);
    url.port = String(proxy.port);
    const storage = await openPgStorage({ url: url.toString(), leaseMs: LEASE_MS });
    try {
      const { accountId } = await storage.accounts.create(null, key('away'));
      await storage.ping();

      await proxy.cut();
      await expect(storage.ping()).rejects.toBeInstanceOf(StorageUnavailable);
      await expect(storage.accounts.exists(accountId)).rejects.toBeInstanceOf(StorageUnavailable);
      await expect(storage.sites.toggleVisibility(accountId)).rejects.toBeInstanceOf(
        StorageUnavailable,
      );
      await expect(
        storage.sites.update(accountId, (current) => ({ ...current, bio: 'x' })),
      ).rejects.toBeInstanceOf(StorageUnavailable);
      await expect(
        storage.transaction((tx) => tx.projects.create(accountId, 'p', 'p')),
      ).rejects.toBeInstanceOf(StorageUnavailable);
      await expect(storage.lock('account:away', async () => 'ran')).rejects.toBeInstanceOf(
        StorageUnavailable,
      );
      // While away, other replicas' notifications are lost: keys count as changed.
      await sleep(300);

      await proxy.up();
      const back = await within(3_000, async () => {
        try {
          await storage.ping();
          return true;
        } catch (error) {
          expect(error).toBeInstanceOf(StorageUnavailable);
          return false;
        }
      });
      expect(back).toBeLessThan(3_000);
      expect(await storage.accounts.exists(accountId)).toBe(true);
      await expect(storage.lock('account:away', async () => 'ran')).resolves.toBe('ran');
      // The LISTEN connection is back too: a revocation by another replica is heard.
      await within(3_000, () => storage.keysMayHaveChanged());
      const { keyId } = await a.accounts.create(null, key('heard'));
      await a.accounts.revokeKey(keyId);
      await within(1_000, () => storage.keysMayHaveChanged());
    } finally {
      await storage.close();
      await proxy.cut();
    }
  });

  it('the API answers 503 with JSON, the pages a 503 page, /healthz 503; then 200 again', async () => {
    const proxy = new CuttableProxy();
    await proxy.up();
    const url = new URL(database.location);
    url.port = String(proxy.port);
    const app = await buildApp(loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' }));
    try {
      const { accountId } = await app.storage.accounts.create(null, key('http'));
      await app.storage.profiles.setDisplayName(accountId, 'away-page');
      await proxy.cut();
      const api = await app.inject({ url: '/stats/get-projects', headers: { 'x-api-key': 'x' } });
      expect(api.statusCode).toBe(503);
      expect(api.headers['retry-after']).toBe('1');
      expect(api.json()).toEqual({ error: 'The database is unavailable: retry in a moment.' });
      const page = await app.inject({ url: '/@away-page', headers: { accept: 'text/html' } });
      expect(page.statusCode).toBe(503);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('Temporarily unavailable');
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(503);

      await proxy.up();
      await within(3_000, async () => (await app.inject({ url: '/healthz' })).statusCode === 200);
      const back = await app.inject({ url: '/@away-page', headers: { accept: 'text/html' } });
      // Hidden (never made visible): the one 404 page, no longer a 503.
      expect(back.statusCode).toBe(404);
    } finally {
      await app.close();
      await proxy.cut();
    }
  });
});
