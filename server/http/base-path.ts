import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * BASE_PATH (docs/operations.md, behind a reverse proxy under a path). The app registers every
 * route under it (app.ts), so routes, views and redirects are written as the app sees them
 * (`/dashboard/keys`); the addresses a browser follows get the base path here, in one place:
 * `addressOf` for a Location, a cookie's Path or a subrequest, `rebaseDocument` for a rendered
 * page. With no base path both change nothing.
 */

/** The address of the app's `path` (which starts with `/`) as a browser reaches it. */
export const addressOf = (app: FastifyInstance, path: string): string =>
  `${app.config.basePath}${path}`;

/**
 * The attributes a page writes addresses in. Preact escapes `"` in every text and attribute
 * value it renders, so ` href="/` in its output is always an attribute, never text a user wrote.
 */
const ROOT_RELATIVE = / (href|src|action|formaction)="\/(?!\/)/g;

/**
 * A rendered document with the base path before every root-relative address (`href="/docs"`
 * becomes `href="/ci-stats/docs"`). Addresses a user gave are absolute http(s) URLs
 * (contract/fields.ts) and protocol-relative ones (`//host`) name another host: neither changes.
 */
export function rebaseDocument(html: string, basePath: string): string {
  return basePath === '' ? html : html.replace(ROOT_RELATIVE, ` $1="${basePath}/`);
}

/** Where the app is seen from outside: PUBLIC_URL (base path included), or this request's. */
export const publicBaseOf = (request: FastifyRequest): string =>
  request.server.config.publicUrl ??
  `${request.protocol}://${request.host}${request.server.config.basePath}`;
