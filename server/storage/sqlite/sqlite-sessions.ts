import type { SessionRepository, StoredSession } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const sessionWrites = ['create', 'renew', 'delete', 'purgeExpired'] as const;

/** Dashboard sessions, by the hash of their token. */
export function sqliteSessions(db: Db): Sync<SessionRepository> {
  const insert = db.prepare(
    `INSERT INTO sessions (token_hash, account_id, key_id, created_at, expires_at, csrf_secret)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const find = db.prepare(
    `SELECT s.account_id AS accountId, s.expires_at AS expiresAt, s.csrf_secret AS csrfSecret
       FROM sessions s JOIN api_keys k ON k.id = s.key_id
      WHERE s.token_hash = ? AND s.expires_at > ? AND k.revoked_at IS NULL
        AND s.csrf_secret IS NOT NULL`,
  );
  const renew = db.prepare('UPDATE sessions SET expires_at = ? WHERE token_hash = ?');
  const remove = db.prepare('DELETE FROM sessions WHERE token_hash = ?');
  const purge = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');

  return {
    create(tokenHash, owner, expiresAt, csrfSecret) {
      insert.run(tokenHash, owner.accountId, owner.keyId, Date.now(), expiresAt, csrfSecret);
    },
    find: (tokenHash, now) => find.get(tokenHash, now) as StoredSession | undefined,
    renew(tokenHash, expiresAt) {
      renew.run(expiresAt, tokenHash);
    },
    delete(tokenHash) {
      remove.run(tokenHash);
    },
    purgeExpired: (now) => purge.run(now).changes,
  };
}
