import type { IdempotencyClaim, IdempotencyRepository, StoredAnswer } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const idempotencyWrites = ['purge'] as const;

/** First answers to Idempotency-Keys, per account. */
export function sqliteIdempotency(db: Db) {
  // DO NOTHING rather than an error: a repeat is an answer to look up, not a failed write (which
  // would make the group commit run its whole group again, one savepoint per write).
  const claim = db.prepare(
    `INSERT INTO idempotency_keys (account_id, key, fingerprint, response, created_at)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const find = db.prepare(
    'SELECT fingerprint, response FROM idempotency_keys WHERE account_id = ? AND key = ?',
  );
  const purge = db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?');

  const repository: Sync<IdempotencyRepository> = {
    purge: (before) => purge.run(before).changes,
  };
  return {
    repository,
    /** Inside the record's transaction: the earlier answer when the key is taken, else undefined. */
    claim(c: IdempotencyClaim): StoredAnswer | undefined {
      if (claim.run(c.accountId, c.key, c.fingerprint, c.response, Date.now()).changes > 0) {
        return undefined;
      }
      return find.get(c.accountId, c.key) as StoredAnswer;
    },
  };
}
