import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireApiKey } from './api-key-auth.js';
import { jsonNotFound } from './error-handler.js';
import { describeArea, type Tag } from './route-docs.js';

/** A route's path within its area's prefix: `within('/stats', '/stats/get-events')` is `/get-events`. */
export function within(prefix: string, path: string): string {
  if (!path.startsWith(`${prefix}/`)) throw new Error(`${path} is not under ${prefix}`);
  return path.slice(prefix.length);
}

/**
 * One API area (`/stats`, `/account`...): unknown paths under its prefix are JSON 404s, whoever
 * asks, and its routes admit only a valid API key, refused with the area's own 401 text.
 * `publicRoutes`, when given, need no key.
 */
export function apiArea(
  tag: Tag,
  unauthorizedText: string,
  routes: FastifyPluginAsyncZod,
  publicRoutes?: FastifyPluginAsyncZod,
) {
  return async (area: FastifyInstance) => {
    area.setNotFoundHandler(jsonNotFound);
    if (publicRoutes) {
      await area.register(async (open) => {
        describeArea(open, { tag, auth: 'none', rateLimited: true });
        await open.register(publicRoutes);
      });
    }
    await area.register(async (authenticated) => {
      describeArea(authenticated, {
        tag,
        auth: 'api-key',
        unauthorized: unauthorizedText,
        rateLimited: true,
      });
      requireApiKey(authenticated, unauthorizedText);
      await authenticated.register(routes);
    });
  };
}
