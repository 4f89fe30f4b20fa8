import { randomUUID } from 'node:crypto';
import type {
  SiteBlock,
  SiteConfiguration,
  UpdateSiteConfigurationRequest,
} from '../../contract/site.js';

/** The fields E4 may change (visibility is changed only by E3). */
export type SiteFields = Omit<SiteConfiguration, 'visibility'>;

const TEXT_FIELDS = ['bio', 'avatar_url', 'location', 'mood', 'theme_id'] as const;

/**
 * E4's partial update: a field that is present replaces the stored one (null clears it), an
 * absent one stays. `blocks`, when present, replaces the whole ordered list; a block keeps its id
 * when that id names one of the account's current blocks (first use only), else it gets a new one.
 */
export function applySiteUpdate(
  current: SiteConfiguration,
  change: UpdateSiteConfigurationRequest,
  newId: () => string = randomUUID,
): SiteFields {
  const next: SiteFields = {
    bio: current.bio,
    avatar_url: current.avatar_url,
    location: current.location,
    mood: current.mood,
    theme_id: current.theme_id,
    blocks: current.blocks,
  };
  for (const field of TEXT_FIELDS) {
    const value = change[field];
    if (value !== undefined) next[field] = value;
  }
  if (change.blocks) {
    const existing = new Set(current.blocks.map((block) => block.id));
    const used = new Set<string>();
    next.blocks = change.blocks.map((block): SiteBlock => {
      const id =
        block.id !== undefined && existing.has(block.id) && !used.has(block.id)
          ? block.id
          : newId();
      used.add(id);
      const title = block.title?.trim();
      return {
        id,
        type: block.type,
        content: block.content,
        enabled: block.enabled ?? true,
        ...(title ? { title } : {}),
      };
    });
  }
  return next;
}
