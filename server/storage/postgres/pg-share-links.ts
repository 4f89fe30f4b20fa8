import { randomUUID } from 'node:crypto';
import { nowIso } from '../../domain/time.js';
import type { ShareLinkInfo, ShareLinkRepository } from '../storage.js';
import type { Sql } from './pg-database.js';

/** Read-only links to a project's statistics, by the hash of their token. */
export function pgShareLinks(sql: Sql): ShareLinkRepository {
  return {
    async create(projectId, tokenHash, prefix) {
      const link = { id: randomUUID(), prefix, created_at: nowIso() };
      await sql`
        INSERT INTO share_links (id, project_id, token_hash, prefix, created_at)
        VALUES (${link.id}, ${projectId}, ${tokenHash}, ${prefix}, ${link.created_at})`;
      return link;
    },

    async list(projectId) {
      const rows = await sql<ShareLinkInfo[]>`
        SELECT id, prefix, created_at FROM share_links
         WHERE project_id = ${projectId} AND revoked_at IS NULL ORDER BY created_at, seq`;
      return rows.map((row) => ({ ...row }));
    },

    async find(tokenHash) {
      const [row] = await sql<{ projectId: string }[]>`
        SELECT project_id AS "projectId" FROM share_links
         WHERE token_hash = ${tokenHash} AND revoked_at IS NULL`;
      return row && { projectId: row.projectId };
    },

    async revoke(tokenHash, accountId) {
      const result = await sql`
        UPDATE share_links SET revoked_at = ${nowIso()}
         WHERE token_hash = ${tokenHash} AND revoked_at IS NULL
           AND project_id IN (SELECT id FROM projects WHERE account_id = ${accountId})`;
      return result.count > 0;
    },

    async revokeById(id, accountId) {
      const result = await sql`
        UPDATE share_links SET revoked_at = ${nowIso()}
         WHERE id = ${id} AND revoked_at IS NULL
           AND project_id IN (SELECT id FROM projects WHERE account_id = ${accountId})`;
      return result.count > 0;
    },
  };
}
