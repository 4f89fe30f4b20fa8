import type { BLOCK_TYPES } from './site.js';

/** GET /pagesite/get-themes 200 response body: the built-in themes a site can pick. */
export interface ThemeList {
  themes: { id: string; name: string }[];
}

/**
 * GET /@<display_name> with `Accept: application/json`: what the page shows, nothing more.
 * `theme_id` is the theme it is shown in (the default for an unknown one), `avatar_url` is null
 * unless it is an http(s) URL, a link block that is not an http(s) URL is shown as text, and
 * `contact` is the alias while email forwarding is on.
 */
export interface PublicPageJson {
  display_name: string;
  bio: string | null;
  avatar_url: string | null;
  location: string | null;
  mood: string | null;
  theme_id: string;
  /** A link's `title` is present when it has one. */
  blocks: { type: (typeof BLOCK_TYPES)[number]; content: string; title?: string }[];
  contact: string | null;
}
