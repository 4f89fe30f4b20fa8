import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { SpecError } from '../../../contract/error-texts.js';
import { Areas, HostedAreas } from '../../../contract/paths.js';
import { adminArea } from '../admin/admin-routes.js';
import { apiArea } from './area.js';
import { countBadKeys } from './bad-keys.js';
import { apiValidatorCompiler } from './body-validator.js';
import { jsonErrorHandler } from './error-handler.js';
import { acceptJsonOnly } from './json-body.js';
import { openApi } from './openapi.js';
import { rateLimits } from './rate-limits.js';
import { accountRoutes } from './routes/account-routes.js';
import { emailForwardingRoutes } from './routes/forwarding-routes.js';
import { healthRoutes } from './routes/health-routes.js';
import { openApiRoutes } from './routes/openapi-routes.js';
import { pagesiteRoutes, publicSiteRoutes } from './routes/site-routes.js';
import { statsRoutes } from './routes/stats-routes.js';
import { quarantineRoutes } from './tests/quarantine-routes.js';
import { testRoutes } from './tests/test-routes.js';

/** The `/stats` area: the statistics, and tests as data in a folder of their own. */
const statsAndTestRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(statsRoutes);
  await app.register(testRoutes);
  await app.register(quarantineRoutes);
};

/**
 * The JSON API, in a context of its own: JSON bodies only, zod schemas on every route (the
 * contract's), errors as `{ "error": "..." }` with the spec's texts. Each area is one prefix with
 * its own 401 text, and is also served under the hosted service's prefix (`/api/slowstats`...);
 * the admin area exists only with ADMIN_TOKEN.
 */
export async function apiContext(app: FastifyInstance) {
  app.setValidatorCompiler(apiValidatorCompiler);
  acceptJsonOnly(app);
  app.setErrorHandler(jsonErrorHandler);

  // Before the routes: the document is built from the routes registered after it.
  await openApi(app);
  await app.register(healthRoutes);
  // Every route registered from here on (health checks are not) counts against a rate limit.
  await rateLimits(app);
  countBadKeys(app);
  const areas = [
    [Areas.forwarding, 'Email forwarding', SpecError.unauthorizedForwarding, emailForwardingRoutes],
    [Areas.pagesite, 'Site', SpecError.unauthorizedSite, pagesiteRoutes, publicSiteRoutes],
    [Areas.account, 'Account', SpecError.unauthorizedSite, accountRoutes],
    [Areas.stats, 'Statistics', SpecError.unauthorizedStats, statsAndTestRoutes],
  ] as const;
  for (const [prefix, tag, unauthorized, routes, publicRoutes] of areas) {
    await app.register(apiArea(tag, unauthorized, routes, publicRoutes), { prefix });
    // The hosted service's path for the same area: the same plugin, mounted a second time.
    await app.register(apiArea(tag, unauthorized, routes, publicRoutes), {
      prefix: HostedAreas[prefix],
    });
  }
  await app.register(openApiRoutes);
  const token = app.config.adminToken;
  if (token) await app.register(adminArea, { prefix: Areas.admin, token });
}
