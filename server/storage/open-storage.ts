import type { Config } from '../config.js';
import { openPgStorage } from './postgres/pg-storage.js';
import type { ReplicaStatus } from './read-routing/replica-status.js';
import { openSqliteStorage, type PreMigrationBackup } from './sqlite/sqlite-storage.js';
import type { Storage } from './storage.js';

/** How long past its delivery timeout a replica's claim on an outbox job still holds. */
const LEASE_MARGIN_MS = 5_000;

/** What the storage tells its opener while it runs. */
export interface StorageListeners {
  /** Where the copy taken before a migration went (SQLite). */
  onBackup?: (backup: PreMigrationBackup) => void;
  /** Where reads go, when that changes (a read replica, PostgreSQL). */
  onReplicaChange?: (status: ReplicaStatus) => void;
  /** A flush of the log failed: writes are refused until a restart (SQLite, DURABILITY=full). */
  onFlushFailed?: (failure: Error) => void;
}

/** The storage the configuration names (PostgreSQL when DATABASE_URL is set), opened and migrated. */
export async function openStorage(
  config: Pick<
    Config,
    | 'databasePath'
    | 'databaseUrl'
    | 'durability'
    | 'inlineFlushMaxMs'
    | 'outbound'
    | 'reads'
    | 'replica'
  >,
  { onBackup, onReplicaChange, onFlushFailed }: StorageListeners = {},
): Promise<Storage> {
  if (config.databaseUrl !== undefined) {
    return openPgStorage({
      url: config.databaseUrl,
      // A claimed job is delivered within its timeout (a retry within another): only a replica
      // that died leaves a claim to run out.
      leaseMs: 2 * config.outbound.timeoutMs + LEASE_MARGIN_MS,
      durability: config.durability,
      reads: config.reads,
      ...(config.replica.url === undefined
        ? {}
        : {
            replica: {
              url: config.replica.url,
              maxLagSeconds: config.replica.maxLagSeconds,
              ...(onReplicaChange ? { onChange: onReplicaChange } : {}),
            },
          }),
    });
  }
  return openSqliteStorage({
    path: config.databasePath,
    durability: config.durability,
    inlineFlushMaxMs: config.inlineFlushMaxMs,
    onBackup,
    onFlushFailed,
  });
}
