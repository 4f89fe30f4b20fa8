import { randomInt } from 'node:crypto';
import type {
  AppendResult,
  IdempotencyRepository,
  OutboxRepository,
  RecordRepository,
  StatsRepository,
} from '../storage.js';
import type { Sql } from './pg-database.js';
import { PgGroupCommit } from './pg-group-commit.js';
import { pgIdempotency } from './pg-idempotency.js';
import { pgOutboxLeases } from './pg-outbox.js';
import { type Append, appendAll, pgRecords } from './pg-records.js';
import { pgStats } from './pg-stats.js';

export interface PgIngest {
  /** `sql === pool`: appends are grouped (one transaction, multi-row inserts) and each resolves
   *  after its group committed; `sql` a transaction (from `pool.begin`): appended in it. */
  records(sql: Sql): RecordRepository;
  stats(sql: Sql): StatsRepository;
  outbox(sql: Sql): OutboxRepository;
  idempotency(sql: Sql): IdempotencyRepository;
  /** Resolves once every grouped append queued so far has committed (before close). */
  drain(): Promise<void>;
}

/** Groups committing at once, per process. */
const GROUPS = 4;
/** Series rows of a key: GROUPS per process, at SHARD_BASES places (see the migration). */
const SHARD_BASES = 16;

/**
 * The ingest side of the PostgreSQL backend: events and metrics (grouped commits), statistics,
 * the outbox with its leases across replicas, and Idempotency-Key answers.
 */
export function pgIngest(pool: Sql, options: { replicaId: string; leaseMs: number }): PgIngest {
  // The series rows this process writes: its groups' own, apart from most other replicas'.
  const shards = randomInt(SHARD_BASES) * GROUPS;
  const groups = new PgGroupCommit<Append, AppendResult>(pool, {
    run: (tx, appends, slot) => appendAll(tx, appends, shards + slot),
    concurrency: GROUPS,
    // Two claims of one key in a group would both look new: the later one waits a group.
    keyOf: ({ claim }) => (claim ? `${claim.accountId}\n${claim.key}` : undefined),
  });
  const leases = pgOutboxLeases(pool, options);
  return {
    records: (sql) =>
      pgRecords(sql, async (record, claim) =>
        sql === pool
          ? groups.run({ record, claim })
          : ((await appendAll(sql, [{ record, claim }], shards))[0] as AppendResult),
      ),
    stats: pgStats,
    outbox: leases.repository,
    idempotency: pgIdempotency,
    async drain() {
      await groups.drain();
      leases.stop();
    },
  };
}
