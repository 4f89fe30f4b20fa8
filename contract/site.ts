import * as z from 'zod/mini';
import { httpUrl, isHttpUrl, text } from './fields.js';
import { Limits } from './limits.js';
import { noNul } from './text-rule.js';

export const BLOCK_TYPES = ['text', 'link'] as const;

/** A content block as sent to E4: `id` keeps an existing block's id, `enabled` defaults to true. */
export const SiteBlockInput = z
  .strictObject({
    id: z.optional(z.string().check(z.minLength(1), z.maxLength(Limits.blockIdLength), noNul)),
    type: z.enum(BLOCK_TYPES),
    content: text(Limits.blockContentLength),
    enabled: z.optional(z.boolean()),
    /** A link's title, shown above its host (null or absent: the host and path alone). */
    title: z.optional(z.nullable(text(Limits.blockTitleLength))),
  })
  .check(
    z.refine((block) => block.type !== 'link' || isHttpUrl(block.content), {
      path: ['content'],
      message: 'a link must be an absolute http(s) URL',
    }),
    z.refine((block) => block.type === 'link' || block.title == null, {
      path: ['title'],
      message: 'only a link block has a title',
    }),
  );
export type SiteBlockInput = z.infer<typeof SiteBlockInput>;

/** A field of E4 that may be absent (kept), null (cleared) or a value (replaced). */
const updatable = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

/** E4 POST /pagesite/update-site-configuration request body: a partial update. */
export const UpdateSiteConfigurationRequest = z.strictObject({
  bio: updatable(text(Limits.bioLength)),
  avatar_url: updatable(httpUrl),
  location: updatable(text(Limits.locationLength)),
  mood: updatable(text(Limits.moodLength)),
  theme_id: updatable(text(Limits.themeIdLength)),
  blocks: z.optional(z.array(SiteBlockInput).check(z.maxLength(Limits.blocks))),
});
export type UpdateSiteConfigurationRequest = z.infer<typeof UpdateSiteConfigurationRequest>;

/** E4 200 response body: the site as stored after the update. */
export interface UpdateSiteConfigurationResponse {
  success: true;
  site: SiteConfiguration;
}

/** GET /pagesite/get-site-status 200 body (the hosted service's): the site's visibility. */
export interface SiteStatus {
  enabled: boolean;
}

export interface SiteBlock {
  id: string;
  type: (typeof BLOCK_TYPES)[number];
  content: string;
  enabled: boolean;
  /** A link's title; absent when it has none. */
  title?: string;
}

/** The site as E4 and GET /pagesite/get-site-configuration return it; unset fields are null. */
export interface SiteConfiguration {
  bio: string | null;
  avatar_url: string | null;
  location: string | null;
  mood: string | null;
  theme_id: string | null;
  visibility: boolean;
  blocks: SiteBlock[];
}

/**
 * E3 POST /pagesite/toggle-site-visibility takes no parameters: no body, an empty body, `{}`
 * (and JSON `null`, which Fastify cannot tell from no body at all).
 */
export const ToggleVisibilityRequest = z.nullish(z.strictObject({}));

/** E3 200 response body. */
export interface ToggleVisibilityResponse {
  success: true;
  newStatus: boolean;
}
