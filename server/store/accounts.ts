import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.js';
import { displayPrefix, generateApiKey, hashApiKey } from '../domain/api-keys.js';
import { nowIso } from '../domain/time.js';

export interface KeyOwner {
  accountId: string;
  keyId: string;
}

export interface IssuedKey {
  keyId: string;
  apiKey: string;
}

/** Accounts and their API keys. Keys are stored only as SHA-256 hashes. */
export function accountStore(db: Db) {
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

  function createKey(accountId: string, apiKey = generateApiKey()): IssuedKey {
    const keyId = randomUUID();
    insertKey.run(keyId, accountId, hashApiKey(apiKey), displayPrefix(apiKey), nowIso());
    return { keyId, apiKey };
  }

  return {
    createKey,

    /** A new account with its first key. */
    createAccount: db.transaction((label: string | null, apiKey?: string) => {
      const accountId = randomUUID();
      insertAccount.run(accountId, label, nowIso());
      return { accountId, ...createKey(accountId, apiKey) };
    }),

    exists: (accountId: string): boolean => accountExists.get(accountId) !== undefined,

    count: (): number => countAccounts.get() as number,

    /** The owner of an unrevoked key with this hash. */
    findKey: (keyHash: string): KeyOwner | undefined =>
      keyByHash.get(keyHash) as KeyOwner | undefined,

    /** Revokes a key; false when no key has this id. Revoking twice keeps the first time. */
    revokeKey: (keyId: string): boolean => revoke.run(nowIso(), keyId).changes > 0,
  };
}

export type AccountStore = ReturnType<typeof accountStore>;
