import { randomUUID } from 'node:crypto';
import { STORAGE_FULL_RETRY_S, StorageFull } from '../../domain/domain-errors.js';
import { SpaceWatch } from '../space-watch.js';
import type { Repositories, Storage } from '../storage.js';
import { pgAccounts } from './pg-accounts.js';
import { pgChannels } from './pg-channels.js';
import { openPgDatabase, openPgReadPool, type PgOptions, type Sql } from './pg-database.js';
import { pgExport } from './pg-export.js';
import { pgIngest } from './pg-ingest.js';
import { pgLock } from './pg-lock.js';
import { listenForChanges } from './pg-notifications.js';
import { pgProfiles } from './pg-profiles.js';
import { pgProjectPage } from './pg-project-page.js';
import { pgProjects } from './pg-projects.js';
import { pgRetention } from './pg-retention.js';
import { pgSessions } from './pg-sessions.js';
import { pgShareLinks } from './pg-share-links.js';
import { pgSites } from './pg-sites.js';
import { pgSlackInstalls } from './pg-slack-installs.js';
import { pgTests } from './pg-tests.js';
import { guarded, reaching, translated } from './pg-unavailable.js';
import { pgVerdicts } from './pg-verdicts.js';

export interface PgStorageOptions {
  url: string;
  /** How long a replica's claim on an outbox job holds before another replica may take it over. */
  leaseMs: number;
  /** Connections in the pool. */
  max?: number;
  durability?: PgOptions['durability'];
  /** The statistics reads' own pool: its connections, and PostgreSQL's statement_timeout (ms). */
  reads?: { connections: number; timeoutMs: number };
}

/**
 * The PostgreSQL backend, for one or several processes (replicas) on one database: a pool for
 * the work, one LISTEN connection to hear of other replicas' commits, and one connection holding
 * the advisory locks. While the database cannot be reached, every method fails with the domain's
 * StorageUnavailable (503), and the client reconnects by itself once it is back.
 */
export async function openPgStorage({
  url,
  leaseMs,
  max,
  durability,
  reads = { connections: 4, timeoutMs: 10_000 },
}: PgStorageOptions): Promise<Storage> {
  const pool = await openPgDatabase({
    url,
    ...(max === undefined ? {} : { max }),
    ...(durability === undefined ? {} : { durability }),
  });
  const readPool = openPgReadPool(url, reads.connections, reads.timeoutMs);
  let notifications: Awaited<ReturnType<typeof listenForChanges>>;
  try {
    notifications = await listenForChanges(url);
  } catch (error) {
    await Promise.all([pool.end({ timeout: 1 }), readPool.end({ timeout: 1 })]);
    throw error;
  }
  const ingest = pgIngest(pool, { replicaId: randomUUID(), leaseMs });
  const locks = pgLock(url);

  // Changes to what pages show, committed by this process: counted once they are visible.
  let pagesCommitted = 0;

  // A full disk is PostgreSQL's to report (53100); it is over once no write failed so for as
  // long as clients are asked to wait (Retry-After), and a write succeeds.
  const space = new SpaceWatch(
    () =>
      pool`UPDATE schema_migrations SET name = name
            WHERE version = (SELECT MAX(version) FROM schema_migrations)`.then(
        () => true,
        (error: unknown) => {
          if (translated(error) instanceof StorageFull) return false;
          throw translated(error);
        },
      ),
    STORAGE_FULL_RETRY_S * 1000,
  );
  const observe = space.saw;

  const repositoriesOf = (sql: Sql, pagesChanged: () => void): Repositories => ({
    accounts: guarded(pgAccounts(sql), observe),
    sessions: guarded(pgSessions(sql), observe),
    profiles: guarded(pgProfiles(sql, pagesChanged), observe),
    sites: guarded(pgSites(sql, pagesChanged), observe),
    projects: guarded(pgProjects(sql), observe),
    shareLinks: guarded(pgShareLinks(sql), observe),
    channels: guarded(pgChannels(sql), observe),
    slackInstalls: guarded(pgSlackInstalls(sql), observe),
    records: guarded(ingest.records(sql), observe),
    // Outside a transaction, on the reads' own pool (bounded, with a statement timeout).
    stats: guarded(ingest.stats(sql === pool ? readPool : sql), observe),
    outbox: guarded(ingest.outbox(sql), observe),
    idempotency: guarded(ingest.idempotency(sql), observe),
    retention: guarded(pgRetention(sql), observe),
    verdicts: guarded(pgVerdicts(sql), observe),
    tests: guarded(pgTests(sql), observe),
    projectPage: guarded(pgProjectPage(sql), observe),
    // Pages of a long export: on the reads' own pool, like the statistics.
    exports: guarded(pgExport(sql === pool ? readPool : sql), observe),
  });

  return {
    // Outside a transaction each write commits before its promise resolves.
    ...repositoriesOf(pool, () => {
      pagesCommitted += 1;
    }),

    transaction: (work) =>
      reaching(async () => {
        let pagesChanged = false;
        const result = await pool.begin((tx) =>
          work(
            repositoriesOf(tx as unknown as Sql, () => {
              pagesChanged = true;
            }),
          ),
        );
        if (pagesChanged) pagesCommitted += 1;
        return result as Awaited<ReturnType<typeof work>>;
      }, observe),

    lock: (key, task) => locks.run(key, task),

    keysMayHaveChanged: () => notifications.keysMayHaveChanged(),

    // Both counts only grow, so their sum moves whenever either does.
    pagesVersion: () => pagesCommitted + notifications.pagesVersion(),

    onJobsQueued: (listener) => notifications.onJobsQueued(listener),

    ping: () =>
      reaching(async () => {
        await pool`SELECT 1`;
      }),

    full: () => space.full(),

    // PostgreSQL's WAL is the server's own: recycled by its checkpoints, not ours to truncate.
    truncateLog: async () => undefined,

    async close() {
      await ingest.drain();
      await notifications.close();
      await locks.close();
      // Bounded: after a lost connection, postgres.js 3.4 may wait for a query it already
      // rejected (porsager/postgres#1097); everything of ours has finished by now.
      await Promise.all([pool.end({ timeout: 5 }), readPool.end({ timeout: 5 })]);
    },
  };
}
