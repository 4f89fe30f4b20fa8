import type { Db } from '../db/database.js';
import { nowIso } from '../domain/time.js';
import type { OutboxJob } from '../outbox/jobs.js';

export interface DueJob {
  id: number;
  payload: string;
  attempts: number;
}

/**
 * The durable outbox: jobs are inserted inside the transaction of the change that causes them,
 * and leave `pending` exactly once, as delivered or failed. A finished job's payload is erased:
 * it may hold a webhook token, which we keep only while we need it.
 */
export function outboxStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO outbox (kind, event_id, payload, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  // Jobs being delivered are still pending; `busy` (a JSON array of their ids) leaves them out.
  const due = db.prepare(
    `SELECT id, payload, attempts FROM outbox
      WHERE status = 'pending' AND next_attempt_at <= ?
        AND id NOT IN (SELECT value FROM json_each(?))
      ORDER BY next_attempt_at, id LIMIT ?`,
  );
  const nextDue = db
    .prepare(
      `SELECT MIN(next_attempt_at) FROM outbox
        WHERE status = 'pending' AND id NOT IN (SELECT value FROM json_each(?))`,
    )
    .pluck();
  const finish = db.prepare(
    `UPDATE outbox SET status = ?, attempts = ?, last_error = ?, payload = NULL, updated_at = ?
      WHERE id = ? AND status = 'pending'`,
  );
  const reschedule = db.prepare(
    `UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ?, updated_at = ?
      WHERE id = ? AND status = 'pending'`,
  );
  let queuedSinceAsked = false;

  return {
    /** Must run inside the caller's transaction: the job exists exactly when the change does. */
    enqueue(job: OutboxJob, eventId: string | null = null): void {
      const now = nowIso();
      insert.run(job.kind, eventId, JSON.stringify(job), Date.now(), now, now);
      queuedSinceAsked = true;
    },

    /** Whether jobs were queued since the last call (so the worker need not look otherwise). */
    takeQueued(): boolean {
      const queued = queuedSinceAsked;
      queuedSinceAsked = false;
      return queued;
    },

    /** Pending jobs due at `now`, except those in `busy`. */
    due: (now: number, limit: number, busy: number[]): DueJob[] =>
      due.all(now, JSON.stringify(busy), limit) as DueJob[],

    /** Epoch ms of the earliest pending job not in `busy`, if any. */
    nextDueAt: (busy: number[]): number | undefined =>
      (nextDue.get(JSON.stringify(busy)) as number | null) ?? undefined,

    delivered(id: number, attempts: number): void {
      finish.run('delivered', attempts, null, nowIso(), id);
    },

    failed(id: number, attempts: number, error: string): void {
      finish.run('failed', attempts, error, nowIso(), id);
    },

    retryAt(id: number, attempts: number, at: number, error: string): void {
      reschedule.run(attempts, at, error, nowIso(), id);
    },
  };
}

export type OutboxStore = ReturnType<typeof outboxStore>;
