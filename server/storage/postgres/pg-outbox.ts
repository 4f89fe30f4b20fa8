import type postgres from 'postgres';
import { nowIso } from '../../domain/time.js';
import type { OutboxJob } from '../../outbox/outbox-jobs.js';
import type { DueJob, OutboxRepository } from '../storage.js';
import { integerArray, type Sql } from './pg-database.js';

/** The channel every replica LISTENs on: jobs were queued, or handed back. */
export const OUTBOX_CHANNEL = 'ci_stats_outbox';

export interface LeaseOptions {
  /** This process, as written in `leased_by`. */
  replicaId: string;
  /** How long a claim holds a job; renewed while held, so only a dead replica's leases run out. */
  leaseMs: number;
}

/** A job to write into the outbox, with the event that caused it (if any). */
export interface NewJob {
  job: OutboxJob;
  eventId: string | undefined;
}

/**
 * The INSERT of `jobs` into the outbox, not yet run: alone (enqueueJobs) or as one part of the
 * statement that stores a group of records (pg-records.ts).
 */
export function outboxInsert(
  sql: Sql,
  /** `n` orders them (their place in `jobs` by default). */
  jobs: readonly (NewJob & { n?: number })[],
  /** Which of them to insert, a condition on `n` (all by default). */
  where?: postgres.PendingQuery<postgres.Row[]>,
) {
  const now = Date.now();
  const iso = nowIso();
  const rows = JSON.stringify(
    jobs.map(({ job, eventId, n }, i) => ({
      n: n ?? i,
      kind: job.kind,
      event_id: eventId ?? null,
      payload: JSON.stringify(job),
    })),
  );
  return sql`INSERT INTO outbox (kind, event_id, payload, next_attempt_at, created_at, updated_at)
             SELECT kind, event_id, payload, ${now}, ${iso}, ${iso}
               FROM json_to_recordset(${rows}::text::json) AS r(n int, kind text, event_id text, payload text)
              ${where ? sql`WHERE ${where}` : sql``}
              ORDER BY n`;
}

/** The NOTIFY of queued jobs, which PostgreSQL delivers to every replica once its transaction commits. */
export const outboxNotify = (sql: Sql) => sql`SELECT pg_notify(${OUTBOX_CHANNEL}, '')`;

/** Writes jobs in the caller's transaction, with one NOTIFY. */
export async function enqueueJobs(sql: Sql, jobs: readonly NewJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await Promise.all([outboxInsert(sql, jobs), outboxNotify(sql)]);
}

/**
 * The outbox shared by every replica of one database. A replica claims due jobs with a lease
 * (`leased_by`, `lease_until`): `FOR UPDATE SKIP LOCKED` hands each job to one replica only,
 * and outcomes are written only while the lease is still this replica's, so a job is never sent
 * by two replicas at once. While this process holds jobs (delivering them, or waiting in their
 * webhook's lane), it renews their leases every third of `leaseMs`; a replica that dies stops
 * renewing, and its jobs become due to the others when the lease runs out (`nextDueAt` tells
 * their workers when to look).
 *
 * Times are epoch ms of the replicas' clocks, which must agree to well within `leaseMs`.
 */
export function pgOutboxLeases(pool: Sql, { replicaId, leaseMs }: LeaseOptions) {
  /** Jobs this process holds: claimed and not yet finished or handed back. */
  const held = new Set<number>();
  let heartbeat: NodeJS.Timeout | undefined;

  const renewHeld = async () => {
    if (held.size === 0) {
      clearInterval(heartbeat);
      heartbeat = undefined;
      return;
    }
    const ids = [...held];
    try {
      const kept = await pool<{ id: number }[]>`
        UPDATE outbox SET lease_until = ${Date.now() + leaseMs}
         WHERE id = ANY(${integerArray(ids)}::bigint[]) AND leased_by = ${replicaId}
           AND status = 'pending'
        RETURNING id`;
      const still = new Set(kept.map((row) => row.id));
      // Gone: finished, or taken over after our lease ran out (then never ours again).
      for (const id of ids) if (!still.has(id)) held.delete(id);
    } catch {
      // The database is away: tried again at the next beat (deliveries check their lease anyway).
    }
  };
  const hold = (ids: number[]) => {
    for (const id of ids) held.add(id);
    if (heartbeat === undefined && held.size > 0) {
      heartbeat = setInterval(() => void renewHeld(), Math.max(50, Math.floor(leaseMs / 3)));
      heartbeat.unref();
    }
  };

  function repository(sql: Sql): OutboxRepository {
    const finish = async (
      id: number,
      status: 'delivered' | 'failed',
      attempts: number,
      error: string | null,
    ) => {
      held.delete(id);
      await sql`
        UPDATE outbox SET status = ${status}, attempts = ${attempts}, last_error = ${error},
               payload = NULL, leased_by = NULL, lease_until = NULL, updated_at = ${nowIso()}
         WHERE id = ${id} AND status = 'pending' AND leased_by = ${replicaId}`;
    };
    return {
      async enqueue(job, eventId) {
        const jobs = [{ job, eventId }];
        if (sql === pool) await pool.begin((tx) => enqueueJobs(tx as unknown as Sql, jobs));
        else await enqueueJobs(sql, jobs);
      },

      async claimDue(now, limit) {
        if (limit <= 0) return [];
        const rows = await sql<(DueJob & { at: number })[]>`
          UPDATE outbox o SET leased_by = ${replicaId}, lease_until = ${now + leaseMs}
            FROM (SELECT id FROM outbox
                   WHERE status = 'pending' AND next_attempt_at <= ${now}
                     AND (lease_until IS NULL OR lease_until <= ${now})
                   ORDER BY next_attempt_at, id
                   LIMIT ${limit}
                   FOR UPDATE SKIP LOCKED) due
           WHERE o.id = due.id
          RETURNING o.id, o.payload, o.attempts, o.next_attempt_at AS at`;
        rows.sort((a, b) => a.at - b.at || a.id - b.id);
        hold(rows.map((row) => row.id));
        return rows.map(({ id, payload, attempts }) => ({ id, payload, attempts }));
      },

      // The earliest time a job not held here may be claimed: its attempt time, or when the lease
      // another replica holds on it runs out (that replica may have died).
      async nextDueAt() {
        const [row] = await sql<{ at: number | null }[]>`
          SELECT MIN(GREATEST(next_attempt_at, COALESCE(lease_until, 0))) AS at FROM outbox
           WHERE status = 'pending' AND NOT (id = ANY(${integerArray(held)}::bigint[]))`;
        return row?.at ?? undefined;
      },

      async renewClaim(id, now) {
        const rows = await sql`
          UPDATE outbox SET lease_until = ${now + leaseMs}
           WHERE id = ${id} AND leased_by = ${replicaId} AND status = 'pending'
          RETURNING id`;
        if (rows.length === 0) held.delete(id);
        return rows.length > 0;
      },

      delivered: (id, attempts) => finish(id, 'delivered', attempts, null),

      failed: (id, attempts, error) => finish(id, 'failed', attempts, error),

      async retryAt(id, attempts, at, error) {
        held.delete(id);
        await sql`
          UPDATE outbox SET attempts = ${attempts}, next_attempt_at = ${at}, last_error = ${error},
                 leased_by = NULL, lease_until = NULL, updated_at = ${nowIso()}
           WHERE id = ${id} AND status = 'pending' AND leased_by = ${replicaId}`;
      },

      // Handed back without an outcome: every replica is told, so that one picks it up now.
      async release(id) {
        held.delete(id);
        await sql`
          WITH freed AS (
            UPDATE outbox SET leased_by = NULL, lease_until = NULL
             WHERE id = ${id} AND leased_by = ${replicaId} AND status = 'pending'
            RETURNING id)
          SELECT pg_notify(${OUTBOX_CHANNEL}, '') FROM freed`;
      },

      pendingPayloads: () =>
        sql<{ id: number; payload: string }[]>`
          SELECT id, payload FROM outbox
           WHERE status = 'pending' AND payload IS NOT NULL ORDER BY id`,

      async replacePayload(id, payload) {
        await sql`UPDATE outbox SET payload = ${payload} WHERE id = ${id} AND status = 'pending'`;
      },
    };
  }

  return {
    repository,
    /** Stops renewing (before the pool closes); leases still held run out by themselves. */
    stop(): void {
      clearInterval(heartbeat);
      heartbeat = undefined;
    },
  };
}
