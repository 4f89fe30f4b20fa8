import type { SiteConfiguration, UpdateSiteConfigurationRequest } from '../../contract/site.js';
import { applySiteUpdate } from '../domain/site-update.js';
import type { Storage } from '../storage/storage.js';

/** E3, E4 and the read-back of the site configuration. */
export function siteService(storage: Storage) {
  return {
    get: (accountId: string): Promise<SiteConfiguration> => storage.sites.get(accountId),

    /** E3: flips visibility; returns the new value. */
    toggleVisibility: (accountId: string): Promise<boolean> =>
      storage.sites.toggleVisibility(accountId),

    /** E4: a partial update (see `applySiteUpdate`); returns the site as stored. */
    update: (accountId: string, change: UpdateSiteConfigurationRequest) =>
      storage.sites.update(accountId, (current) => applySiteUpdate(current, change)),
  };
}

export type SiteService = ReturnType<typeof siteService>;
