import type { SessionRepository, StoredSession } from '../storage.js';
import type { Sql } from './pg-database.js';

/** Dashboard sessions, by the hash of their token. */
export function pgSessions(sql: Sql): SessionRepository {
  return {
    async create(tokenHash, owner, expiresAt, csrfSecret) {
      await sql`
        INSERT INTO sessions (token_hash, account_id, key_id, created_at, expires_at, csrf_secret)
        VALUES (${tokenHash}, ${owner.accountId}, ${owner.keyId}, ${Date.now()}, ${expiresAt},
                ${csrfSecret})`;
    },

    async find(tokenHash, now) {
      const [row] = await sql<StoredSession[]>`
        SELECT s.account_id AS "accountId", s.expires_at AS "expiresAt",
               s.csrf_secret AS "csrfSecret"
          FROM sessions s JOIN api_keys k ON k.id = s.key_id
         WHERE s.token_hash = ${tokenHash} AND s.expires_at > ${now} AND k.revoked_at IS NULL
           AND s.csrf_secret IS NOT NULL`;
      return (
        row && { accountId: row.accountId, expiresAt: row.expiresAt, csrfSecret: row.csrfSecret }
      );
    },

    async renew(tokenHash, expiresAt) {
      await sql`UPDATE sessions SET expires_at = ${expiresAt} WHERE token_hash = ${tokenHash}`;
    },

    async delete(tokenHash) {
      await sql`DELETE FROM sessions WHERE token_hash = ${tokenHash}`;
    },

    async purgeExpired(now) {
      const result = await sql`DELETE FROM sessions WHERE expires_at <= ${now}`;
      return result.count;
    },
  };
}
