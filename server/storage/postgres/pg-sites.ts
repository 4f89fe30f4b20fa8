import type { SiteConfiguration } from '../../../contract/site.js';
import { nowIso } from '../../domain/time.js';
import { emptySite, type SiteRow, siteOf } from '../site-rows.js';
import type { PublicSite, SiteRepository } from '../storage.js';
import { atomically } from './pg-atomic.js';
import type { Sql } from './pg-database.js';
import { Channel } from './pg-notifications.js';

/**
 * Personal page configuration; blocks are one JSON list, always replaced whole. What public
 * pages show: each change notifies every replica on commit, and `changed` runs once it is written.
 */
export function pgSites(sql: Sql, changed: () => void): SiteRepository {
  async function get(accountId: string, db: Sql = sql): Promise<SiteConfiguration> {
    const [row] = await db<SiteRow[]>`
      SELECT bio, avatar_url, location, mood, theme_id, visibility, blocks
        FROM sites WHERE account_id = ${accountId}`;
    return row ? siteOf(row) : emptySite();
  }

  return {
    get: (accountId) => get(accountId),

    // Display names are unique (indexed): one row at most.
    async findVisible(displayName): Promise<PublicSite | undefined> {
      const [row] = await sql<(SiteRow & { displayName: string; forwardingEnabled: boolean })[]>`
        SELECT p.display_name AS "displayName", p.forwarding_enabled AS "forwardingEnabled",
               s.bio, s.avatar_url, s.location, s.mood, s.theme_id, s.visibility, s.blocks
          FROM profiles p JOIN sites s ON s.account_id = p.account_id
         WHERE p.display_name = ${displayName} AND s.visibility`;
      return (
        row && {
          displayName: row.displayName,
          forwardingEnabled: row.forwardingEnabled,
          site: siteOf(row),
        }
      );
    },

    // One statement, so concurrent flips (from any replica) can never lose one: the row lock
    // makes the second wait for the first and flip what it wrote.
    async toggleVisibility(accountId) {
      const [row] = await sql<{ visibility: boolean }[]>`
        WITH flipped AS (
          INSERT INTO sites (account_id, visibility, updated_at) VALUES (${accountId}, TRUE, ${nowIso()})
          ON CONFLICT (account_id) DO UPDATE SET visibility = NOT sites.visibility,
                                                 updated_at = EXCLUDED.updated_at
          RETURNING visibility)
        SELECT visibility, pg_notify(${Channel.pages}, '') FROM flipped`;
      changed();
      return row?.visibility === true;
    },

    // The row is locked (FOR UPDATE) from the read to the save: a concurrent update, on any
    // replica, waits and then applies its change to what this one saved.
    async update(accountId, change) {
      const site = await atomically(sql, async (tx) => {
        const locked = () => tx<SiteRow[]>`
          SELECT bio, avatar_url, location, mood, theme_id, visibility, blocks
            FROM sites WHERE account_id = ${accountId} FOR UPDATE`;
        let [row] = await locked();
        if (!row) {
          // A site never touched: its row is made (as stored empty) so that there is one to lock.
          await tx`INSERT INTO sites (account_id, updated_at) VALUES (${accountId}, ${nowIso()})
                   ON CONFLICT (account_id) DO NOTHING`;
          [row] = await locked();
        }
        const current = row ? siteOf(row) : emptySite();
        const next = change(current);
        await tx`
          UPDATE sites SET bio = ${next.bio}, avatar_url = ${next.avatar_url},
                           location = ${next.location}, mood = ${next.mood},
                           theme_id = ${next.theme_id}, blocks = ${JSON.stringify(next.blocks)},
                           updated_at = ${nowIso()}
           WHERE account_id = ${accountId}`;
        await tx`SELECT pg_notify(${Channel.pages}, '')`;
        return { ...next, visibility: current.visibility };
      });
      changed();
      return site;
    },
  };
}
