import { randomUUID } from 'node:crypto';
import type { KeyScope } from '../../../contract/api-keys.js';
import { nowIso } from '../../domain/time.js';
import type { AccountInfo, AccountRepository, KeyInfo, KeyOwner, NewKey } from '../storage.js';
import { atomically } from './pg-atomic.js';
import type { Sql } from './pg-database.js';
import { Channel } from './pg-notifications.js';

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

/**
 * Accounts and their API keys. Keys are stored only as SHA-256 hashes. A revocation notifies
 * every replica (on commit), whose key caches then forget what they trusted.
 */
export function pgAccounts(sql: Sql): AccountRepository {
  async function createKey(accountId: string, key: NewKey, db: Sql = sql): Promise<string> {
    const keyId = randomUUID();
    const projectIds = key.projectIds === null ? null : JSON.stringify(key.projectIds);
    await db`
      INSERT INTO api_keys (id, account_id, key_hash, prefix, label, scope, project_ids, created_at)
      VALUES (${keyId}, ${accountId}, ${key.digest.hash}, ${key.digest.prefix}, ${key.label},
              ${key.scope}, ${projectIds}, ${nowIso()})`;
    return keyId;
  }

  return {
    createKey: (accountId, key) => createKey(accountId, key),

    create: (label, key) =>
      atomically(sql, async (tx) => {
        const accountId = randomUUID();
        await tx`INSERT INTO accounts (id, label, created_at) VALUES (${accountId}, ${label}, ${nowIso()})`;
        return { accountId, keyId: await createKey(accountId, key, tx) };
      }),

    async exists(accountId) {
      const rows = await sql`SELECT 1 FROM accounts WHERE id = ${accountId}`;
      return rows.length > 0;
    },

    async count() {
      const [row] = await sql<{ count: number }[]>`SELECT COUNT(*) AS count FROM accounts`;
      return row?.count ?? 0;
    },

    async list() {
      const rows = await sql<AccountInfo[]>`
        SELECT id AS "accountId", label, created_at FROM accounts ORDER BY created_at, seq`;
      return [...rows];
    },

    async findKey(keyHash): Promise<KeyOwner | undefined> {
      const [row] = await sql<
        { keyId: string; accountId: string; scope: KeyScope; projectIds: string | null }[]
      >`
        SELECT id AS "keyId", account_id AS "accountId", scope, project_ids AS "projectIds"
          FROM api_keys WHERE key_hash = ${keyHash} AND revoked_at IS NULL`;
      return row && { ...row, projectIds: projectIdsOf(row.projectIds) };
    },

    async listKeys(accountId) {
      const rows = await sql<KeyInfoRow[]>`
        SELECT id, label, prefix, scope, project_ids AS "projectIds", created_at,
               last_used_at AS "lastUsedAt"
          FROM api_keys WHERE account_id = ${accountId} AND revoked_at IS NULL
         ORDER BY created_at, seq`;
      return rows.map(
        ({ lastUsedAt, projectIds, ...key }): KeyInfo => ({
          ...key,
          projectIds: projectIdsOf(projectIds),
          last_used_at: lastUsedAt === null ? null : new Date(lastUsedAt).toISOString(),
        }),
      );
    },

    // Revoking one's own key twice finds nothing the second time; the admin's revoke is
    // idempotent and keeps the first time.
    async revokeKey(keyId, accountId) {
      const rows =
        accountId === undefined
          ? await sql`
              WITH revoked AS (
                UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${nowIso()})
                 WHERE id = ${keyId} RETURNING 1)
              SELECT pg_notify(${Channel.keys}, '') FROM revoked`
          : await sql`
              WITH revoked AS (
                UPDATE api_keys SET revoked_at = ${nowIso()}
                 WHERE id = ${keyId} AND account_id = ${accountId} AND revoked_at IS NULL
                RETURNING 1)
              SELECT pg_notify(${Channel.keys}, '') FROM revoked`;
      return rows.length > 0;
    },

    async recordKeyUse(uses) {
      if (uses.length === 0) return;
      const batch = JSON.stringify(uses.map(([id, at]) => ({ id, at })));
      await sql`
        UPDATE api_keys k SET last_used_at = GREATEST(COALESCE(k.last_used_at, 0), u.at)
          FROM (SELECT id, MAX(at) AS at FROM json_to_recordset(${batch}::text::json) AS r(id TEXT, at BIGINT)
                 GROUP BY id) u
         WHERE k.id = u.id`;
    },
  };
}
