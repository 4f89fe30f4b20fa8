import type { SiteBlock, SiteConfiguration } from '../contract/site.js';
import type { Db } from '../db/database.js';
import { nowIso } from '../domain/time.js';

interface SiteRow {
  bio: string | null;
  avatar_url: string | null;
  location: string | null;
  mood: string | null;
  theme_id: string | null;
  visibility: 0 | 1;
  blocks: string;
}

/** The fields E4 may change (visibility is changed only by E3). */
export type SiteFields = Omit<SiteConfiguration, 'visibility'>;

const EMPTY_SITE: SiteConfiguration = {
  bio: null,
  avatar_url: null,
  location: null,
  mood: null,
  theme_id: null,
  visibility: false,
  blocks: [],
};

/** Personal page configuration; a site that was never touched is hidden and empty. */
export function siteStore(db: Db) {
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

  function get(accountId: string): SiteConfiguration {
    const row = byAccount.get(accountId) as SiteRow | undefined;
    if (!row) return { ...EMPTY_SITE, blocks: [] };
    return {
      ...row,
      visibility: row.visibility === 1,
      blocks: JSON.parse(row.blocks) as SiteBlock[],
    };
  }

  return {
    get,

    /** Flips visibility and returns the new value. */
    toggleVisibility: (accountId: string): boolean => toggle.get(accountId, nowIso()) === 1,

    /** Applies `change` to the stored fields and returns the new site (run it in a transaction). */
    update(
      accountId: string,
      change: (current: SiteConfiguration) => SiteFields,
    ): SiteConfiguration {
      const current = get(accountId);
      const next = change(current);
      save.run({ accountId, ...next, blocks: JSON.stringify(next.blocks), updatedAt: nowIso() });
      return { ...next, visibility: current.visibility };
    },
  };
}

export type SiteStore = ReturnType<typeof siteStore>;
