import { randomUUID } from 'node:crypto';
import { STORAGE_FULL_RETRY_S, StorageFull } from '../../domain/domain-errors.js';
import { currentReadScope } from '../read-routing/read-scope.js';
import { RecentWriters } from '../read-routing/recent-writers.js';
import { type ReadRouter, routedRepositories } from '../read-routing/replica-reads.js';
import type { ReplicaStatus } from '../read-routing/replica-status.js';
import { SpaceWatch } from '../space-watch.js';
import type { Repositories, Storage, VerdictRepository } from '../storage.js';
import { pgAccounts } from './pg-accounts.js';
import { pgChannels } from './pg-channels.js';
import { openPgDatabase, openPgReadPool, type PgOptions, type Sql } from './pg-database.js';
import { pgExport } from './pg-export.js';
import { pgIngest } from './pg-ingest.js';
import { pgLock } from './pg-lock.js';
import { listenForChanges } from './pg-notifications.js';
import { partitionKeeper } from './pg-partitions.js';
import { pgProfiles } from './pg-profiles.js';
import { pgProjectPage } from './pg-project-page.js';
import { pgProjects } from './pg-projects.js';
import { ReplicaWatch } from './pg-replica-watch.js';
import { pgRetention } from './pg-retention.js';
import { pgSessions } from './pg-sessions.js';
import { pgShareLinks } from './pg-share-links.js';
import { pgSites } from './pg-sites.js';
import { pgSlackInstalls } from './pg-slack-installs.js';
import { pgStorageUse } from './pg-storage-use.js';
import { pgTests } from './pg-tests.js';
import { guarded, isUnreachable, reaching, translated } from './pg-unavailable.js';
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
  /**
   * A streaming replica of the same database (DATABASE_REPLICA_URL): the pages' and `/stats/*`
   * reads go there while it is within `maxLagSeconds` of the primary (docs/operations.md).
   */
  replica?: { url: string; maxLagSeconds: number; onChange?: (status: ReplicaStatus) => void };
}

/** How often each replica makes the record partitions ahead (pg-partitions.ts). */
const PARTITIONS_EVERY_MS = 3_600_000;

/** PostgreSQL's serialization_failure: on a standby, a query cancelled by a replay conflict. */
const REPLAY_CONFLICT = '40001';

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
  replica,
}: PgStorageOptions): Promise<Storage> {
  const pool = await openPgDatabase({
    url,
    ...(max === undefined ? {} : { max }),
    ...(durability === undefined ? {} : { durability }),
  });
  const readPool = openPgReadPool(url, reads.connections, reads.timeoutMs);
  // The replica's reads are the pages' and the statistics': as many at once as the main pool's,
  // each bounded by the same statement timeout. No ingest shares that server to be kept from.
  const replicaPool =
    replica && openPgReadPool(replica.url, max ?? 10, reads.timeoutMs, 'ci-stats-replica-reads');
  const pools = [pool, readPool, ...(replicaPool ? [replicaPool] : [])];
  let notifications: Awaited<ReturnType<typeof listenForChanges>>;
  try {
    notifications = await listenForChanges(url);
  } catch (error) {
    await Promise.all(pools.map((each) => each.end({ timeout: 1 })));
    throw error;
  }
  const ingest = pgIngest(pool, { replicaId: randomUUID(), leaseMs });
  // Monthly partitions made ahead (and a database of plain tables converted online), now and
  // every hour. A failed run is tried again at the next; the DEFAULT partition takes records
  // meanwhile.
  const partitions = partitionKeeper(pool, PARTITIONS_EVERY_MS, (error) =>
    console.error(`could not maintain the record partitions: ${(error as Error).message}`),
  );
  partitions.start();
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

  const plainRepositoriesOf = (
    sql: Sql,
    pagesChanged: () => void,
    verdicts: VerdictRepository = pgVerdicts(sql),
  ): Repositories => ({
    accounts: pgAccounts(sql),
    sessions: pgSessions(sql),
    profiles: pgProfiles(sql, pagesChanged),
    sites: pgSites(sql, pagesChanged),
    projects: pgProjects(sql),
    shareLinks: pgShareLinks(sql),
    channels: pgChannels(sql),
    slackInstalls: pgSlackInstalls(sql),
    records: ingest.records(sql),
    // Outside a transaction, on the reads' own pool (bounded, with a statement timeout).
    stats: ingest.stats(sql === pool ? readPool : sql),
    outbox: ingest.outbox(sql),
    idempotency: ingest.idempotency(sql),
    retention: pgRetention(sql),
    verdicts,
    tests: pgTests(sql),
    projectPage: pgProjectPage(sql),
    // Pages of a long export: on the reads' own pool, like the statistics.
    exports: pgExport(sql === pool ? readPool : sql),
    // The dashboard's counts: on the reads' pool too (bounded, with a statement timeout).
    use: pgStorageUse(sql === pool ? readPool : sql),
  });
  const guardedAll = (repositories: Repositories) =>
    Object.fromEntries(
      Object.entries(repositories).map(([name, repository]) => [
        name,
        guarded(repository, observe),
      ]),
    ) as unknown as Repositories;

  const pagesChanged = () => {
    pagesCommitted += 1;
  };
  const routing = replicaPool && replicaReads(pool, replicaPool, replica);
  await routing?.watch.start();

  return {
    // Outside a transaction each write commits before its promise resolves. With a replica,
    // the reads it may serve go there (read-routing/replica-reads.ts).
    ...guardedAll(
      routing
        ? routedRepositories(
            plainRepositoriesOf(pool, pagesChanged),
            plainRepositoriesOf(replicaPool as Sql, () => {}),
            routing.router,
          )
        : plainRepositoriesOf(pool, pagesChanged),
    ),

    transaction: (work) =>
      reaching(async () => {
        let pagesChanged = false;
        const result = await pool.begin(async (tx) => {
          const sql = tx as unknown as Sql;
          // Judged records are inserted together (pg-verdicts.ts), the last of them here.
          const verdicts = pgVerdicts(sql, true);
          const done = await work(
            guardedAll(
              plainRepositoriesOf(
                sql,
                () => {
                  pagesChanged = true;
                },
                verdicts,
              ),
            ),
          );
          await verdicts.flushStores();
          return done;
        });
        if (pagesChanged) pagesCommitted += 1;
        return result as Awaited<ReturnType<typeof work>>;
      }, observe).finally(() => routing?.router.primaryUsed()),

    lock: (key, task) => locks.run(key, task),

    keysMayHaveChanged: () => notifications.keysMayHaveChanged(),

    // Both counts only grow, so their sum moves whenever either does.
    transactionsHoldTheLoop: false,
    pagesVersion: () => pagesCommitted + notifications.pagesVersion(),

    onJobsQueued: (listener) => notifications.onJobsQueued(listener),

    ping: () =>
      reaching(async () => {
        await pool`SELECT 1`;
      }),

    full: () => space.full(),
    flushFailed: () => false,

    replica: () => routing?.watch.status(),

    // PostgreSQL's WAL is the server's own: recycled by its checkpoints, not ours to truncate.
    truncateLog: async () => undefined,

    async close() {
      await routing?.watch.stop();
      await partitions.stop();
      await ingest.drain();
      await notifications.close();
      await locks.close();
      // Bounded: after a lost connection, postgres.js 3.4 may wait for a query it already
      // rejected (porsager/postgres#1097); everything of ours has finished by now.
      await Promise.all(pools.map((each) => each.end({ timeout: 5 })));
    },
  };
}

/**
 * Where reads go with a replica: to it, for a safe request (GET, HEAD) whose caller has not
 * written since the replica last caught up, while it is within the lag limit; else to the
 * primary. A caller's write is remembered for as long as a replica within the limit could still
 * lack it (the limit, and two checks).
 */
function replicaReads(
  primary: Sql,
  replicaPool: Sql,
  { maxLagSeconds, onChange }: NonNullable<PgStorageOptions['replica']>,
) {
  const maxLagMs = maxLagSeconds * 1000;
  const everyMs = Math.min(1000, maxLagMs / 4);
  const watch = new ReplicaWatch(primary, replicaPool, maxLagMs, everyMs, onChange);
  const writers = new RecentWriters(maxLagMs + 2 * everyMs);
  const router: ReadRouter = {
    toReplica() {
      const scope = currentReadScope();
      if (!scope?.safe) return false;
      const since = scope.caller === undefined ? undefined : writers.lastWrite(scope.caller);
      return watch.usable(since);
    },
    fallsBack(error) {
      if (isUnreachable(error)) {
        watch.down();
        return true;
      }
      return (error as { code?: unknown } | null)?.code === REPLAY_CONFLICT;
    },
    primaryUsed() {
      const scope = currentReadScope();
      if (scope !== undefined && !scope.safe && scope.caller !== undefined) {
        writers.wrote(scope.caller);
      }
    },
  };
  return { watch, router };
}
