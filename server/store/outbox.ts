import type { Db } from '../db/database.js';
import { nowIso } from '../domain/time.js';
import type { OutboxJob } from '../outbox/jobs.js';

/** The durable outbox: jobs are inserted inside the transaction of the change that causes them. */
export function outboxStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO outbox (kind, event_id, payload, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );

  return {
    /** Must run inside the caller's transaction. */
    enqueue(job: OutboxJob, eventId: string | null = null): number {
      const now = nowIso();
      return Number(
        insert.run(job.kind, eventId, JSON.stringify(job), Date.now(), now, now).lastInsertRowid,
      );
    },
  };
}

export type OutboxStore = ReturnType<typeof outboxStore>;
