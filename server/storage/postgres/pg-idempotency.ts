import type { IdempotencyClaim, IdempotencyRepository, StoredAnswer } from '../storage.js';
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

/**
 * Inside a record group's transaction: stores the claims (at most one per (account, key)) and
 * returns, for each claim whose key already had an answer, that answer. Keys are written in one
 * order (sorted) so that two groups holding the same keys cannot deadlock; a key another group
 * is storing at the same time waits for its commit and is then found here.
 */
export async function claimAll(
  sql: Sql,
  claims: readonly IdempotencyClaim[],
): Promise<(StoredAnswer | undefined)[]> {
  if (claims.length === 0) return [];
  const rows = JSON.stringify(
    claims.map((c) => ({ a: c.accountId, k: c.key, f: c.fingerprint, r: c.response })),
  );
  const stored = await sql<{ a: string; k: string }[]>`
    INSERT INTO idempotency_keys (account_id, key, fingerprint, response, created_at)
    SELECT a, k, f, r, ${Date.now()}
      FROM json_to_recordset(${rows}::text::json) AS c(a text, k text, f text, r text)
     ORDER BY a, k
    ON CONFLICT DO NOTHING
    RETURNING account_id AS a, key AS k`;
  const id = (accountId: string, key: string) => `${accountId}\n${key}`;
  const fresh = new Set(stored.map((row) => id(row.a, row.k)));
  const taken = claims.filter((c) => !fresh.has(id(c.accountId, c.key)));
  if (taken.length === 0) return claims.map(() => undefined);
  const keys = JSON.stringify(taken.map((c) => ({ a: c.accountId, k: c.key })));
  const earlier = await sql<{ a: string; k: string; fingerprint: string; response: string }[]>`
    SELECT i.account_id AS a, i.key AS k, i.fingerprint, i.response
      FROM idempotency_keys i
      JOIN json_to_recordset(${keys}::text::json) AS c(a text, k text)
        ON i.account_id = c.a AND i.key = c.k`;
  const answers = new Map(
    earlier.map((row) => [
      id(row.a, row.k),
      { fingerprint: row.fingerprint, response: row.response },
    ]),
  );
  return claims.map((c) => {
    if (fresh.has(id(c.accountId, c.key))) return undefined;
    const answer = answers.get(id(c.accountId, c.key));
    // Taken, then purged before we read it: the group runs again and stores it this time.
    if (!answer) throw new Error('an idempotency key vanished while it was claimed');
    return answer;
  });
}
