import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CachedAnswer } from '../../heavy-reads/response-cache.js';

/** A share link's owner: the project its token names and the account the project is of. */
export interface ShareOwner {
  accountId: string;
  projectId: string;
}

/**
 * Answers a share page or badge (share-routes.ts): the token looked up (404 page when unknown or
 * revoked), `compute` run under the project's heavy-read cap and cached by address, 304 when the
 * client has it.
 */
export type ShareAnswer = (
  request: FastifyRequest<{ Params: { token: string } }>,
  reply: FastifyReply,
  cacheControl: string,
  compute: (owner: ShareOwner) => Promise<Omit<CachedAnswer, 'etag'>>,
) => Promise<FastifyReply>;

/** Where a share link's pages are. */
export const sharedPath = (token: string) => `/share/${encodeURIComponent(token)}`;

/**
 * The browser may keep a share page, but must revalidate it (ETag) before showing it again;
 * shared caches may not keep it (its address holds the token).
 */
export const SHARE_PAGE_CACHE = 'private, no-cache';
