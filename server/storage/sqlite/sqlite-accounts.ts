import { randomUUID } from 'node:crypto';
import type { KeyScope } from '../../../contract/api-keys.js';
import { nowIso } from '../../domain/time.js';
import type { AccountInfo, AccountRepository, KeyInfo, KeyOwner, NewKey } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const accountWrites = ['create', 'createKey', 'revokeKey', 'recordKeyUse'] as const;

interface KeyRow {
  keyId: string;
  accountId: string;
  scope: KeyScope;
  projectIds: string | null;
}

interface KeyInfoRow {
  id: string;
  label: string | null;
  prefix: string;
  scope: KeyScope;
  projectIds: string | null;
  created_at: string;
  lastUsedAt: number | null;
}

const projectIdsOf = (json: string | null) =>
  json === null ? null : (JSON.parse(json) as string[]);

/** Accounts and their API keys. Keys are stored only as SHA-256 hashes. */
export function sqliteAccounts(db: Db): Sync<AccountRepository> {
  const insertAccount = db.prepare('INSERT INTO accounts (id, label, created_at) VALUES (?, ?, ?)');
  const accountExists = db.prepare('SELECT 1 FROM accounts WHERE id = ?').pluck();
  const countAccounts = db.prepare('SELECT COUNT(*) FROM accounts').pluck();
  const allAccounts = db.prepare(
    'SELECT id AS accountId, label, created_at FROM accounts ORDER BY created_at, rowid',
  );
  const insertKey = db.prepare(
    `INSERT INTO api_keys (id, account_id, key_hash, prefix, label, scope, project_ids, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const keyByHash = db.prepare(
    `SELECT id AS keyId, account_id AS accountId, scope, project_ids AS projectIds
       FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL`,
  );
  const keysOf = db.prepare(
    `SELECT id, label, prefix, scope, project_ids AS projectIds, created_at, last_used_at AS lastUsedAt
       FROM api_keys WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at, rowid`,
  );
  const revoke = db.prepare(
    'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?',
  );
  const revokeOwn = db.prepare(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?)
      WHERE id = ? AND account_id = ? AND revoked_at IS NULL`,
  );
  const used = db.prepare(
    'UPDATE api_keys SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?',
  );

  function createKey(accountId: string, key: NewKey): string {
    const keyId = randomUUID();
    insertKey.run(
      keyId,
      accountId,
      key.digest.hash,
      key.digest.prefix,
      key.label,
      key.scope,
      key.projectIds === null ? null : JSON.stringify(key.projectIds),
      nowIso(),
    );
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

    list: () => allAccounts.all() as AccountInfo[],

    findKey(keyHash): KeyOwner | undefined {
      const row = keyByHash.get(keyHash) as KeyRow | undefined;
      return row && { ...row, projectIds: projectIdsOf(row.projectIds) };
    },

    listKeys: (accountId) =>
      (keysOf.all(accountId) as KeyInfoRow[]).map(
        ({ lastUsedAt, projectIds, ...key }): KeyInfo => ({
          ...key,
          projectIds: projectIdsOf(projectIds),
          last_used_at: lastUsedAt === null ? null : new Date(lastUsedAt).toISOString(),
        }),
      ),

    // Revoking one's own key twice finds nothing the second time; the admin's revoke is idempotent.
    revokeKey: (keyId, accountId) =>
      (accountId === undefined
        ? revoke.run(nowIso(), keyId)
        : revokeOwn.run(nowIso(), keyId, accountId)
      ).changes > 0,

    recordKeyUse(uses) {
      for (const [keyId, at] of uses) used.run(at, keyId);
    },
  };
}
