import { dirname } from 'node:path';
import { FreshMetrics } from '../fresh-metrics.js';
import { KeyedLock } from '../keyed-lock.js';
import { newestVersion, pendingMigrations } from '../schema-version.js';
import { SpaceWatch } from '../space-watch.js';
import type { Repositories, Storage } from '../storage.js';
import { DEFAULT_INLINE_FLUSH_MAX_MS } from './flush-timing.js';
import { GroupCommit } from './group-commit.js';
import { accountWrites, sqliteAccounts } from './sqlite-accounts.js';
import { backupSqlite, preMigrationBackupPath } from './sqlite-backup.js';
import { channelWrites, sqliteChannels } from './sqlite-channels.js';
import { type Db, migrate, openConnection, schemaVersion } from './sqlite-database.js';
import { hasRoom, translatedSqliteError } from './sqlite-errors.js';
import { sqliteExport } from './sqlite-export.js';
import { idempotencyWrites, sqliteIdempotency } from './sqlite-idempotency.js';
import { migrations } from './sqlite-migrations.js';
import { outboxWrites, sqliteOutbox } from './sqlite-outbox.js';
import { profileWrites, sqliteProfiles } from './sqlite-profiles.js';
import { projectPageWrites, sqliteProjectPage } from './sqlite-project-page.js';
import { projectWrites, sqliteProjects } from './sqlite-projects.js';
import { recordWrites, sqliteRecords } from './sqlite-records.js';
import { retentionWrites, sqliteRetention } from './sqlite-retention.js';
import { sessionWrites, sqliteSessions } from './sqlite-sessions.js';
import { shareLinkWrites, sqliteShareLinks } from './sqlite-share-links.js';
import { siteWrites, sqliteSites } from './sqlite-sites.js';
import { slackInstallWrites, sqliteSlackInstalls } from './sqlite-slack-installs.js';
import { sqliteStats, sqliteStatsIndex } from './sqlite-stats.js';
import { sqliteStorageUse } from './sqlite-storage-use.js';
import { sqliteTests, testWrites } from './sqlite-tests.js';
import { sqliteTimeMarks } from './sqlite-time-marks.js';
import { sqliteVerdicts, verdictWrites } from './sqlite-verdicts.js';
import { now, type Runner, wrap } from './sync.js';
import { WalSync } from './wal-sync.js';

export interface SqliteOptions {
  path: string;
  durability: 'full' | 'normal';
  /**
   * DURABILITY=full: the log is flushed on the event loop while flushes average at most this
   * (ms), else off it; 0: always off it (flush-timing.ts). Default: the server's.
   */
  inlineFlushMaxMs?: number;
  /** Told where the copy taken before a migration went. */
  onBackup?: (backup: PreMigrationBackup) => void;
  /** Told once, when a flush of the log fails and writes stop until a restart. */
  onFlushFailed?: (failure: Error) => void;
}

export interface PreMigrationBackup {
  file: string;
  from: number;
  to: number;
}

/**
 * The file, migrated. An upgrade (a schema that exists and is older than this server's) copies
 * the database beside it first, so that a rollback to the previous version has the data it
 * could read; a new database, or one already up to date, is not copied.
 */
async function openMigrated(
  path: string,
  durability: SqliteOptions['durability'],
  onBackup: SqliteOptions['onBackup'],
): Promise<Db> {
  const db = openConnection(path, durability);
  try {
    const current = schemaVersion(db);
    if (current !== null && pendingMigrations(current, migrations).length > 0) {
      const file = preMigrationBackupPath(path, current);
      await backupSqlite(db, file);
      onBackup?.({ file, from: current, to: newestVersion(migrations) });
    }
    migrate(db, migrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * How stale the view of other processes' commits may get: `PRAGMA data_version` starts a read
 * transaction (about 12 µs), so once a millisecond cost about 1 µs per request under load.
 */
const EXTERNAL_CHANGE_CHECK_MS = 20;

/**
 * The embedded backend: one SQLite file in WAL mode, one connection, every write through the
 * group commit. Other processes (the admin CLI) may write to the same file; their commits are
 * noticed through `PRAGMA data_version`.
 */
export async function openSqliteStorage({
  path,
  durability,
  inlineFlushMaxMs = DEFAULT_INLINE_FLUSH_MAX_MS,
  onBackup,
  onFlushFailed,
}: SqliteOptions): Promise<Storage> {
  const db = await openMigrated(path, durability, onBackup);
  // DURABILITY=full: the migrations above committed with FULL; from here COMMIT does not flush,
  // the log is flushed after it, on the event loop or off it (wal-sync.ts, flush-timing.ts), and
  // each write answered after.
  const wal = durability === 'full' ? new WalSync(path, inlineFlushMaxMs) : undefined;
  if (wal) db.pragma('synchronous = NORMAL');
  const commits = new GroupCommit(db, wal);
  if (onFlushFailed) commits.onFlushFailed(onFlushFailed);
  const space = new SpaceWatch(() => hasRoom(dirname(path)));
  // Every write goes through the group commit: a full disk is the domain's StorageFull (503).
  const failed = (error: unknown): never => {
    throw space.saw(translatedSqliteError(error));
  };
  const write: Runner = (fn) => commits.run(fn).catch(failed);
  const idempotency = sqliteIdempotency(db);
  const outbox = sqliteOutbox(db);
  // What pages show changed in this process: counted once the change has committed.
  let pagesWritten = false;
  let pagesCommitted = 0;
  const pagesChanged = () => {
    pagesWritten = true;
  };
  commits.onCommit(() => {
    if (pagesWritten) pagesCommitted += 1;
    pagesWritten = false;
  });
  // The statistics cells follow the records: folded at most every 100 ms, inside a commit.
  const statsIndex = sqliteStatsIndex(db);
  const marks = sqliteTimeMarks(db);
  commits.beforeCommit(() => statsIndex.beforeCommit());
  commits.onCommit(() => statsIndex.committed());
  // Metric records stored here and not judged yet, handed to judging without a read (issue 31).
  const fresh = new FreshMetrics();
  const tables = {
    accounts: sqliteAccounts(db),
    stats: sqliteStats(db, marks, statsIndex),
    shareLinks: sqliteShareLinks(db),
    channels: sqliteChannels(db),
    slackInstalls: sqliteSlackInstalls(db),
    sessions: sqliteSessions(db),
    profiles: sqliteProfiles(db, pagesChanged),
    sites: sqliteSites(db, pagesChanged),
    projects: sqliteProjects(db),
    records: sqliteRecords(db, idempotency, outbox.repository, statsIndex, marks, fresh),
    retention: sqliteRetention(db),
    verdicts: sqliteVerdicts(db, marks, fresh),
    tests: sqliteTests(db, idempotency),
    projectPage: sqliteProjectPage(db, statsIndex),
    exports: sqliteExport(db),
    use: sqliteStorageUse(db),
  };
  const repositories = (write: Runner): Repositories => ({
    accounts: wrap(tables.accounts, accountWrites, write),
    sessions: wrap(tables.sessions, sessionWrites, write),
    profiles: wrap(tables.profiles, profileWrites, write),
    sites: wrap(tables.sites, siteWrites, write),
    projects: wrap(tables.projects, projectWrites, write),
    records: wrap(tables.records, recordWrites, write),
    stats: wrap(tables.stats, [], write),
    shareLinks: wrap(tables.shareLinks, shareLinkWrites, write),
    channels: wrap(tables.channels, channelWrites, write),
    slackInstalls: wrap(tables.slackInstalls, slackInstallWrites, write),
    outbox: wrap(outbox.repository, outboxWrites, write),
    idempotency: wrap(idempotency.repository, idempotencyWrites, write),
    retention: wrap(tables.retention, retentionWrites, write),
    verdicts: wrap(tables.verdicts, verdictWrites, write),
    tests: wrap(tables.tests, testWrites, write),
    projectPage: wrap(tables.projectPage, projectPageWrites, write),
    exports: wrap(tables.exports, [], write),
    use: wrap(tables.use, [], write),
  });
  // Outside a transaction a write commits on its own, grouped with the writes of its loop turn;
  // inside one it runs at once, as part of it.
  const inTransaction = repositories(now);

  const locks = new KeyedLock();
  const ping = db.prepare('SELECT 1').pluck();

  // Commits by other connections (the admin CLI, an operator's sqlite3): SQLite's data_version
  // moves for each; looked at on the first question of each millisecond.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();
  let checkedAt = performance.now();
  let externalCommits = 0;
  const countExternalCommits = (): number => {
    const time = performance.now();
    if (time - checkedAt >= EXTERNAL_CHANGE_CHECK_MS) {
      checkedAt = time;
      const version = dataVersion.get();
      if (version !== seenVersion) {
        seenVersion = version;
        externalCommits += 1;
      }
    }
    return externalCommits;
  };
  let keysSeenAt = 0;

  const outside = repositories(write);
  return {
    ...outside,
    outbox: {
      ...outside.outbox,
      // A claim waits for the flush of every group committed so far, and is refused once one has
      // failed: no job is sent before the record that queued it is on disk (read in the same
      // microtask: no group commits in between).
      claimDue: async (at, limit) => {
        await commits.flushed().catch(failed);
        return outside.outbox.claimDue(at, limit);
      },
    },

    transaction: (work) => commits.run(() => work(inTransaction)).catch(failed),

    // One process per file: an in-process lock serialises everything that matters.
    lock: (key, task) => locks.run(key, task),

    // Keys are revoked in this process through the key service, which empties its own cache.
    keysMayHaveChanged() {
      const external = countExternalCommits();
      if (external === keysSeenAt) return false;
      keysSeenAt = external;
      return true;
    },

    // Both counts only grow, so their sum moves whenever either does.
    transactionsHoldTheLoop: true,
    pagesVersion: () => pagesCommitted + countExternalCommits(),

    onJobsQueued(listener) {
      // The jobs of a group are looked for once it is on disk.
      commits.onCommit(() => (outbox.takeQueued() ? listener : undefined));
    },

    async ping() {
      ping.get();
    },

    full: () => space.full(),
    flushFailed: () => commits.failed !== undefined,

    // One file, one process: no replica to read from.
    replica: () => undefined,

    async truncateLog() {
      await commits.drain();
      db.pragma('wal_checkpoint(TRUNCATE)');
    },

    async close() {
      await commits.drain();
      wal?.close();
      db.close();
    },
  };
}
