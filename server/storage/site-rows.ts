import type { SiteBlock, SiteConfiguration } from '../../contract/site.js';

/** A sites row as both backends select it: PostgreSQL's flag is a boolean, SQLite's 0 or 1. */
export interface SiteRow {
  bio: string | null;
  avatar_url: string | null;
  location: string | null;
  mood: string | null;
  theme_id: string | null;
  visibility: boolean | 0 | 1;
  blocks: string;
}

/** The site of an account that saved none: a new object each time (its blocks are a list). */
export const emptySite = (): SiteConfiguration => ({
  bio: null,
  avatar_url: null,
  location: null,
  mood: null,
  theme_id: null,
  visibility: false,
  blocks: [],
});

/** A stored site as the repository gives it (blocks are one JSON list). */
export const siteOf = (row: SiteRow): SiteConfiguration => ({
  bio: row.bio,
  avatar_url: row.avatar_url,
  location: row.location,
  mood: row.mood,
  theme_id: row.theme_id,
  visibility: row.visibility === true || row.visibility === 1,
  blocks: JSON.parse(row.blocks) as SiteBlock[],
});
