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
import { pgStatsFold } from './pg-stats-fold.js';

export interface PgIngest {
  /** `sql === pool`: appends are grouped (one transaction, multi-row inserts) and each resolves
   *  after its group committed; `sql` a transaction (from `pool.begin`): appended in it. */
  records(sql: Sql): RecordRepository;
  stats(sql: Sql): StatsRepository;
  outbox(sql: Sql): OutboxRepository;
  idempotency(sql: Sql): IdempotencyRepository;
  /** Folds every record queued so far into the statistics cells (tests, the bench's seed). */
  foldStats(): Promise<void>;
  /** Resolves once every grouped append queued so far has committed (before close). */
  drain(): Promise<void>;
}

/**
 * How often each replica folds the records queued into the statistics cells. Not as often as
 * SQLite's (every 100 ms, inside a commit that holds the event loop): here a fold is a transaction
 * of its own beside the requests, awaiting the database between its statements, with its lock and
 * its queue's reads and deletes paid per fold.
 */
const FOLD_EVERY_MS = 1000;

/** Groups committing at once, per process. */
const GROUPS = 4;
/** Series rows of a key: GROUPS per process, at SHARD_BASES places (see the migration). */
const SHARD_BASES = 16;

/**
 * The ingest side of the PostgreSQL backend: events and metrics (grouped commits), statistics,
 * the outbox with its leases across replicas, and Idempotency-Key answers.
 */
export function pgIngest(
  pool: Sql,
  options: {
    replicaId: string;
    leaseMs: number;
    /** How often this replica folds statistics; 0: only when asked (foldStats, in tests). */
    foldEveryMs?: number;
  },
): PgIngest {
  // The series rows this process writes: its groups' own, apart from most other replicas'.
  const shards = randomInt(SHARD_BASES) * GROUPS;
  const fold = pgStatsFold(pool, options.foldEveryMs ?? FOLD_EVERY_MS);
  if (options.foldEveryMs !== 0) fold.start();
  const times = timeStamps(pool);
  const groups = new PgGroupCommit<Append, AppendResult>(pool, {
    run: async (pool, appends, slot) => {
      const results = await appendAll(pool, appends, shards + slot, await times.stamps());
      fold.stored();
      return results;
    },
    concurrency: GROUPS,
    // Two claims of one key in a group would both look new: the later one waits a group.
    keyOf: ({ claim }) => (claim ? `${claim.accountId}\n${claim.key}` : undefined),
  });
  const leases = pgOutboxLeases(pool, options);
  // In the caller's transaction: folded once it committed, at a turn after (or a later one).
  const appendInTransaction = async (sql: Sql, append: Append) => {
    const [result] = await appendAll(sql, [append], shards, await times.stamps());
    fold.stored();
    return result as AppendResult;
  };
  return {
    records: (sql) =>
      pgRecords(
        sql,
        async (record, claim) =>
          sql === pool
            ? groups.run({ record, claim })
            : await appendInTransaction(sql, { record, claim }),
        // Back-dated: each record keeps its own time (no stamp), in one statement of its own.
        async (records) => {
          const appends = records.map((record) => ({ record, claim: undefined }));
          await appendAll(sql, appends, shards, (t) => t);
          fold.stored();
        },
      ),
    stats: pgStats,
    outbox: leases.repository,
    idempotency: pgIdempotency,
    foldStats: () => fold.foldAll(),
    async drain() {
      await groups.drain();
      leases.stop();
      await fold.stop();
    },
  };
}

/**
 * As on SQLite, a record's time never goes back in storage order: while this process's clock
 * steps back, records keep the latest time stored (read once from the newest records). Each
 * replica holds its own; their clocks must agree anyway (see the outbox leases).
 */
function timeStamps(pool: Sql) {
  let latest: Promise<number> | undefined;
  let known = Number.NEGATIVE_INFINITY;
  const stamp = (t: number) => {
    known = Math.max(known, t);
    return known;
  };
  return {
    async stamps(): Promise<(t: number) => number> {
      latest ??= (async () => {
        const [row] = await pool<{ t: number | null }[]>`
          SELECT GREATEST((SELECT created_at FROM events ORDER BY seq DESC LIMIT 1),
                          (SELECT created_at FROM metrics ORDER BY seq DESC LIMIT 1)) AS t`;
        return row?.t ?? Number.NEGATIVE_INFINITY;
      })().catch((error) => {
        latest = undefined;
        throw error;
      });
      known = Math.max(known, await latest);
      return stamp;
    },
  };
}
