import type { SiteConfiguration } from '../../../contract/site.js';
import { nowIso } from '../../domain/time.js';
import { emptySite, type SiteRow, siteOf } from '../site-rows.js';
import type { PublicSite, SiteRepository } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const siteWrites = ['toggleVisibility', 'update'] as const;

/** Personal page configuration; blocks are one JSON list, always replaced whole. */
export function sqliteSites(db: Db, changed: () => void): Sync<SiteRepository> {
  const byAccount = db.prepare(
    `SELECT bio, avatar_url, location, mood, theme_id, visibility, blocks
       FROM sites WHERE account_id = ?`,
  );
  // One statement, so concurrent toggles can never lose a flip.
  const toggle = db
    .prepare(
      `INSERT INTO sites (account_id, visibility, updated_at) VALUES (?, 1, ?)
       ON CONFLICT (account_id) DO UPDATE SET visibility = 1 - visibility,
                                              updated_at = excluded.updated_at
       RETURNING visibility`,
    )
    .pluck();
  const save = db.prepare(
    `INSERT INTO sites (account_id, bio, avatar_url, location, mood, theme_id, blocks, updated_at)
     VALUES (@accountId, @bio, @avatar_url, @location, @mood, @theme_id, @blocks, @updatedAt)
     ON CONFLICT (account_id) DO UPDATE SET
       bio = excluded.bio, avatar_url = excluded.avatar_url, location = excluded.location,
       mood = excluded.mood, theme_id = excluded.theme_id, blocks = excluded.blocks,
       updated_at = excluded.updated_at`,
  );

  // Display names are unique (indexed): one row at most.
  const visibleByName = db.prepare(
    `SELECT p.display_name AS displayName, p.forwarding_enabled AS forwardingEnabled,
            s.bio, s.avatar_url, s.location, s.mood, s.theme_id, s.visibility, s.blocks
       FROM profiles p JOIN sites s ON s.account_id = p.account_id
      WHERE p.display_name = ? AND s.visibility = 1`,
  );

  function get(accountId: string): SiteConfiguration {
    const row = byAccount.get(accountId) as SiteRow | undefined;
    return row ? siteOf(row) : emptySite();
  }

  return {
    get,

    findVisible(displayName): PublicSite | undefined {
      const row = visibleByName.get(displayName) as
        | (SiteRow & { displayName: string; forwardingEnabled: 0 | 1 })
        | undefined;
      return (
        row && {
          displayName: row.displayName,
          forwardingEnabled: row.forwardingEnabled === 1,
          site: siteOf(row),
        }
      );
    },

    toggleVisibility(accountId) {
      changed();
      return toggle.get(accountId, nowIso()) === 1;
    },

    // A write of the group commit: the read and the save run in one transaction.
    update(accountId, change) {
      changed();
      const current = get(accountId);
      const next = change(current);
      save.run({ accountId, ...next, blocks: JSON.stringify(next.blocks), updatedAt: nowIso() });
      return { ...next, visibility: current.visibility };
    },
  };
}
