import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { SpecError } from '../../../../contract/error-texts.js';
import { Areas, Paths } from '../../../../contract/paths.js';
import type { ThemeList } from '../../../../contract/public-page.js';
import {
  type SiteConfiguration,
  type SiteStatus,
  ToggleVisibilityRequest,
  type ToggleVisibilityResponse,
  UpdateSiteConfigurationRequest,
  type UpdateSiteConfigurationResponse,
} from '../../../../contract/site.js';
import { within } from '../area.js';
import { SITE } from '../examples.js';

/** E3, E4 and the read-back of the site configuration. */
export const pagesiteRoutes: FastifyPluginAsyncZod = async (app) => {
  const { site } = app.services;

  app.post(
    within(Areas.pagesite, Paths.toggleSiteVisibility),
    {
      schema: { summary: 'E3 Flip site visibility', body: ToggleVisibilityRequest },
      config: {
        internalError: SpecError.visibilityFailed,
        docs: { success: { example: { success: true, newStatus: true } } },
      },
    },
    async (request): Promise<ToggleVisibilityResponse> => ({
      success: true,
      newStatus: await site.toggleVisibility(request.account.accountId),
    }),
  );

  app.post(
    within(Areas.pagesite, Paths.updateSiteConfiguration),
    {
      schema: {
        summary: 'E4 Update site configuration (partial)',
        body: UpdateSiteConfigurationRequest,
      },
      config: {
        internalError: SpecError.siteConfigurationFailed,
        docs: { success: { example: { success: true, site: SITE } } },
      },
    },
    async (request): Promise<UpdateSiteConfigurationResponse> => ({
      success: true,
      site: await site.update(request.account.accountId, request.body),
    }),
  );

  app.get(
    within(Areas.pagesite, Paths.getSiteStatus),
    {
      schema: { summary: "Read the site's visibility (the hosted service's operation)" },
      config: { docs: { success: { example: { enabled: true } } } },
    },
    async (request): Promise<SiteStatus> => ({
      enabled: (await site.get(request.account.accountId)).visibility,
    }),
  );

  app.get(
    within(Areas.pagesite, Paths.getSiteConfiguration),
    {
      schema: { summary: 'Read the site configuration' },
      config: { docs: { success: { example: SITE } } },
    },
    async (request): Promise<SiteConfiguration> => site.get(request.account.accountId),
  );
};

/** The theme catalogue, for anyone (a page editor needs it before signing in). */
export const publicSiteRoutes: FastifyPluginAsyncZod = async (app) => {
  const { site } = app.services;
  app.get(
    within(Areas.pagesite, Paths.getThemes),
    {
      schema: { summary: 'List the themes (no key needed)' },
      config: { docs: { success: { example: { themes: [{ id: 'paper', name: 'Paper' }] } } } },
    },
    async (): Promise<ThemeList> => site.themes(),
  );
};
