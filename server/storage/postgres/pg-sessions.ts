import type { SessionRepository } from '../storage.js';
import type { Sql } from './pg-database.js';

/** Dashboard sessions, by the hash of their token. */
export function pgSessions(sql: Sql): SessionRepository {
  return {
    async create(tokenHash, owner, expiresAt) {
      await sql`
        INSERT INTO sessions (token_hash, account_id, key_id, created_at, expires_at)
        VALUES (${tokenHash}, ${owner.accountId}, ${owner.keyId}, ${Date.now()}, ${expiresAt})`;
    },

    async find(tokenHash, now) {
      const [row] = await sql<{ accountId: string; expiresAt: number }[]>`
        SELECT s.account_id AS "accountId", s.expires_at AS "expiresAt"
          FROM sessions s JOIN api_keys k ON k.id = s.key_id
         WHERE s.token_hash = ${tokenHash} AND s.expires_at > ${now} AND k.revoked_at IS NULL`;
      return row && { accountId: row.accountId, expiresAt: row.expiresAt };
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
