import { nowIso } from '../../domain/time.js';
import type { DueJob, OutboxRepository } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const outboxWrites = [
  'enqueue',
  'delivered',
  'failed',
  'retryAt',
  'replacePayload',
] as const;

/**
 * The durable outbox. One server process works on a database file, so a claim is an id in
 * memory: a job being delivered stays `pending` in the table and is left out of `claimDue`.
 */
export function sqliteOutbox(db: Db) {
  const insert = db.prepare(
    `INSERT INTO outbox (kind, event_id, payload, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  // `claimed` (a JSON array of ids) leaves the jobs being delivered out.
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
  const pending = db.prepare(
    "SELECT id, payload FROM outbox WHERE status = 'pending' AND payload IS NOT NULL ORDER BY id",
  );
  const replace = db.prepare("UPDATE outbox SET payload = ? WHERE id = ? AND status = 'pending'");
  const claimed = new Set<number>();
  let queuedSinceAsked = false;

  const repository: Sync<OutboxRepository> = {
    enqueue(job, eventId) {
      const now = nowIso();
      insert.run(job.kind, eventId ?? null, JSON.stringify(job), Date.now(), now, now);
      queuedSinceAsked = true;
    },

    claimDue(now, limit) {
      const jobs = due.all(now, JSON.stringify([...claimed]), limit) as DueJob[];
      for (const job of jobs) claimed.add(job.id);
      return jobs;
    },

    nextDueAt: () => (nextDue.get(JSON.stringify([...claimed])) as number | null) ?? undefined,

    // One process per file: nobody else can take a claim over.
    renewClaim: (id) => claimed.has(id),

    delivered(id, attempts) {
      finish.run('delivered', attempts, null, nowIso(), id);
      claimed.delete(id);
    },

    failed(id, attempts, error) {
      finish.run('failed', attempts, error, nowIso(), id);
      claimed.delete(id);
    },

    retryAt(id, attempts, at, error) {
      reschedule.run(attempts, at, error, nowIso(), id);
      claimed.delete(id);
    },

    release(id) {
      claimed.delete(id);
    },

    pendingPayloads: () => pending.all() as { id: number; payload: string }[],

    replacePayload(id, payload) {
      replace.run(payload, id);
    },
  };

  return {
    repository,
    /** Whether jobs were queued since the last call (so the worker need not look otherwise). */
    takeQueued(): boolean {
      const queued = queuedSinceAsked;
      queuedSinceAsked = false;
      return queued;
    },
  };
}
