import { isHttpUrl } from '../../contract/fields.js';
import { Limits } from '../../contract/limits.js';
import type { PublicPageJson } from '../../contract/public-page.js';
import { resolveTheme, type Theme } from '../domain/themes.js';
import type { Storage } from '../storage/storage.js';

/** A block as the page shows it: a link only when its content is an absolute http(s) URL. */
export type ShownBlock =
  | { type: 'text'; content: string }
  | { type: 'link'; content: string; label: string; title: string | null };

/** Everything the public page shows, and nothing else of the account. */
export interface PublicPage {
  displayName: string;
  bio: string | null;
  avatarUrl: string | null;
  location: string | null;
  mood: string | null;
  theme: Theme;
  blocks: ShownBlock[];
  /** The alias, while email forwarding is on. */
  contact: string | null;
}

/** Names looked up, shown or not; beyond this the cache starts again (it holds any name asked). */
const MAX_CACHED_NAMES = 10_000;

/** Display names are stored as [a-z0-9-], 3-32 long: anything else cannot name a page. */
const NAME = new RegExp(`^[a-z0-9-]{${Limits.displayNameMin},${Limits.displayNameMax}}$`);

/** A link's host and path, as the page shows it (`example.com/docs/x`). */
function linkLabel(url: string): string {
  const { host, pathname } = new URL(url);
  return pathname === '/' ? host : `${host}${pathname}`;
}

/**
 * The public page of a display name. Rows stored before today's validation are shown safely:
 * an avatar or a link that is not an absolute http(s) URL is left out or shown as text.
 *
 * Pages are read far more often than they change, so each name's page (or its absence) is kept
 * until the storage's `pagesVersion` moves, which it does after any committed change to what
 * pages show, in any process. A page view then costs no database read; the same page object is
 * returned while it is unchanged, so callers can key their own caches on it.
 */
export function publicPageService(storage: Storage, mailDomain: string) {
  const cache = new Map<string, { version: number; page: PublicPage | undefined }>();

  async function load(name: string): Promise<PublicPage | undefined> {
    const found = await storage.sites.findVisible(name);
    if (!found) return undefined;
    const { site } = found;
    return {
      displayName: found.displayName,
      bio: site.bio,
      avatarUrl: site.avatar_url !== null && isHttpUrl(site.avatar_url) ? site.avatar_url : null,
      location: site.location,
      mood: site.mood,
      theme: resolveTheme(site.theme_id),
      blocks: site.blocks
        .filter((block) => block.enabled)
        .map(
          (block): ShownBlock =>
            block.type === 'link' && isHttpUrl(block.content)
              ? {
                  type: 'link',
                  content: block.content,
                  label: linkLabel(block.content),
                  title: block.title ?? null,
                }
              : { type: 'text', content: block.content },
        ),
      contact: found.forwardingEnabled ? `${found.displayName}@${mailDomain}` : null,
    };
  }

  return {
    /** The page, when `requestedName` (any case) names an account whose site is visible. */
    async find(requestedName: string): Promise<PublicPage | undefined> {
      const name = requestedName.toLowerCase();
      if (!NAME.test(name)) return undefined;
      // Read before the database: a change committed meanwhile makes this entry stale at once.
      const version = storage.pagesVersion();
      const cached = cache.get(name);
      if (cached?.version === version) return cached.page;
      const page = await load(name);
      if (cache.size >= MAX_CACHED_NAMES) cache.clear();
      cache.set(name, { version, page });
      return page;
    },
  };
}

/** The page as JSON (`Accept: application/json`). */
export function publicPageJson(page: PublicPage): PublicPageJson {
  return {
    display_name: page.displayName,
    bio: page.bio,
    avatar_url: page.avatarUrl,
    location: page.location,
    mood: page.mood,
    theme_id: page.theme.id,
    blocks: page.blocks.map((block) =>
      block.type === 'link' && block.title !== null
        ? { type: block.type, content: block.content, title: block.title }
        : { type: block.type, content: block.content },
    ),
    contact: page.contact,
  };
}

export type PublicPageService = ReturnType<typeof publicPageService>;
