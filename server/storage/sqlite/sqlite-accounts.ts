import { randomUUID } from 'node:crypto';
import type { KeyDigest } from '../../domain/api-keys.js';
import { nowIso } from '../../domain/time.js';
import type { AccountRepository, KeyOwner } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const accountWrites = ['create', 'createKey', 'revokeKey'] as const;

/** Accounts and their API keys. Keys are stored only as SHA-256 hashes. */
export function sqliteAccounts(db: Db): Sync<AccountRepository> {
  const insertAccount = db.prepare('INSERT INTO accounts (id, label, created_at) VALUES (?, ?, ?)');
  const accountExists = db.prepare('SELECT 1 FROM accounts WHERE id = ?').pluck();
  const countAccounts = db.prepare('SELECT COUNT(*) FROM accounts').pluck();
  const insertKey = db.prepare(
    'INSERT INTO api_keys (id, account_id, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const keyByHash = db.prepare(
    'SELECT id AS keyId, account_id AS accountId FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL',
  );
  const revoke = db.prepare(
    'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?',
  );

  function createKey(accountId: string, key: KeyDigest): string {
    const keyId = randomUUID();
    insertKey.run(keyId, accountId, key.hash, key.prefix, nowIso());
    return keyId;
  }

  return {
    createKey,

    create(label, key) {
      const accountId = randomUUID();
      insertAccount.run(accountId, label, nowIso());
      return { accountId, keyId: createKey(accountId, key) };
    },

    exists: (accountId) => accountExists.get(accountId) !== undefined,

    count: () => countAccounts.get() as number,

    findKey: (keyHash) => keyByHash.get(keyHash) as KeyOwner | undefined,

    revokeKey: (keyId) => revoke.run(nowIso(), keyId).changes > 0,
  };
}
