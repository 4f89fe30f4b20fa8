import type { Db } from '../db/database.js';

export interface StoredAnswer {
  fingerprint: string;
  response: string;
}

/** First answers to Idempotency-Keys, per account. */
export function idempotencyStore(db: Db) {
  const find = db.prepare(
    'SELECT fingerprint, response FROM idempotency_keys WHERE account_id = ? AND key = ?',
  );
  const insert = db.prepare(
    `INSERT INTO idempotency_keys (account_id, key, fingerprint, response, created_at)
     VALUES (?, ?, ?, ?, ?)`,
  );
  const purge = db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?');

  return {
    find: (accountId: string, key: string): StoredAnswer | undefined =>
      find.get(accountId, key) as StoredAnswer | undefined,

    /** Must run in the transaction that stores what the answer acknowledges. */
    remember(accountId: string, key: string, fingerprint: string, response: string): void {
      insert.run(accountId, key, fingerprint, response, Date.now());
    },

    /** Forgets answers older than `before` (epoch ms); returns how many. */
    purge: (before: number): number => purge.run(before).changes,
  };
}

export type IdempotencyStore = ReturnType<typeof idempotencyStore>;
