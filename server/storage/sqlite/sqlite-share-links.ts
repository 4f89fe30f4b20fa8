import { randomUUID } from 'node:crypto';
import { nowIso } from '../../domain/time.js';
import type { ShareLinkInfo, ShareLinkRepository } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const shareLinkWrites = ['create', 'revoke', 'revokeById'] as const;

/** Read-only links to a project's statistics, by the hash of their token. */
export function sqliteShareLinks(db: Db): Sync<ShareLinkRepository> {
  const insert = db.prepare(
    'INSERT INTO share_links (id, project_id, token_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const listOf = db.prepare(
    `SELECT id, prefix, created_at FROM share_links
      WHERE project_id = ? AND revoked_at IS NULL ORDER BY created_at, rowid`,
  );
  const find = db.prepare(
    'SELECT project_id AS projectId FROM share_links WHERE token_hash = ? AND revoked_at IS NULL',
  );
  const revoke = db.prepare(
    `UPDATE share_links SET revoked_at = ?
      WHERE token_hash = ? AND revoked_at IS NULL
        AND project_id IN (SELECT id FROM projects WHERE account_id = ?)`,
  );

  const revokeById = db.prepare(
    `UPDATE share_links SET revoked_at = ?
      WHERE id = ? AND revoked_at IS NULL
        AND project_id IN (SELECT id FROM projects WHERE account_id = ?)`,
  );

  return {
    create(projectId, tokenHash, prefix) {
      const link = { id: randomUUID(), prefix, created_at: nowIso() };
      insert.run(link.id, projectId, tokenHash, prefix, link.created_at);
      return link;
    },
    list: (projectId) => listOf.all(projectId) as ShareLinkInfo[],
    find: (tokenHash) => find.get(tokenHash) as { projectId: string } | undefined,
    revoke: (tokenHash, accountId) => revoke.run(nowIso(), tokenHash, accountId).changes > 0,
    revokeById: (id, accountId) => revokeById.run(nowIso(), id, accountId).changes > 0,
  };
}
