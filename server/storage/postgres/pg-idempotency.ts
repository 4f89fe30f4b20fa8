import type { IdempotencyRepository } from '../storage.js';
import type { Sql } from './pg-database.js';

/** First answers to Idempotency-Keys, per account. */
export function pgIdempotency(sql: Sql): IdempotencyRepository {
  return {
    async purge(before) {
      const result = await sql`DELETE FROM idempotency_keys WHERE created_at < ${before}`;
      return result.count;
    },
  };
}
