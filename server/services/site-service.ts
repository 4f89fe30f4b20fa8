import type { ThemeList } from '../../contract/public-page.js';
import type { SiteConfiguration, UpdateSiteConfigurationRequest } from '../../contract/site.js';
import { applySiteUpdate } from '../domain/site-update.js';
import { THEMES } from '../domain/themes.js';
import type { Storage } from '../storage/storage.js';

/** E3, E4 and the read-back of the site configuration. */
export function siteService(storage: Storage) {
  return {
    get: (accountId: string): Promise<SiteConfiguration> => storage.sites.get(accountId),

    /** The built-in themes a site can pick (public). */
    themes: (): ThemeList => ({ themes: THEMES.map(({ id, name }) => ({ id, name })) }),

    /** E3: flips visibility; returns the new value. */
    toggleVisibility: (accountId: string): Promise<boolean> =>
      storage.sites.toggleVisibility(accountId),

    /** E4: a partial update (see `applySiteUpdate`); returns the site as stored. */
    update: (accountId: string, change: UpdateSiteConfigurationRequest) =>
      storage.sites.update(accountId, (current) => applySiteUpdate(current, change)),
  };
}

export type SiteService = ReturnType<typeof siteService>;
