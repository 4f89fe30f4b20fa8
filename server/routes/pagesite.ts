import type { FastifyInstance } from 'fastify';
import { SpecError } from '../contract/errors.js';
import { isJsonObject } from '../contract/json.js';
import {
  type SiteConfiguration,
  type ToggleVisibilityResponse,
  UpdateSiteConfigurationRequest,
} from '../contract/site.js';
import { applySiteUpdate } from '../domain/site-update.js';
import { HttpError } from '../errors.js';
import { requireApiKey } from '../plugins/auth.js';

/** E3, E4 and the read-back of the site configuration. */
export default async function pagesiteRoutes(app: FastifyInstance) {
  const { sites } = app.stores;
  const { commits } = app;
  app.addHook('onRequest', requireApiKey(SpecError.unauthorizedSite));

  app.post(
    '/pagesite/toggle-site-visibility',
    { config: { internalError: SpecError.visibilityFailed } },
    async (request): Promise<ToggleVisibilityResponse> => {
      // E3 has no parameters: no body, or an empty object.
      const body = request.body;
      if (body !== undefined && !(isJsonObject(body) && Object.keys(body).length === 0)) {
        throw new HttpError(400, SpecError.invalidBody);
      }
      return {
        success: true,
        newStatus: await commits.run(() => sites.toggleVisibility(request.account.accountId)),
      };
    },
  );

  app.post(
    '/pagesite/update-site-configuration',
    { config: { internalError: SpecError.siteConfigurationFailed } },
    async (request): Promise<{ success: true; site: SiteConfiguration }> => {
      const change = UpdateSiteConfigurationRequest.safeParse(request.body);
      if (!change.success) throw new HttpError(400, SpecError.invalidBody);
      const site = await commits.run(() =>
        sites.update(request.account.accountId, (current) => applySiteUpdate(current, change.data)),
      );
      return { success: true, site };
    },
  );

  app.get(
    '/pagesite/get-site-configuration',
    async (request): Promise<SiteConfiguration> => sites.get(request.account.accountId),
  );
}
