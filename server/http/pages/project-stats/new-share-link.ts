import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  cookiePath,
  overHttps,
  cookieName as pageCookieName,
} from '../dashboard/dashboard-pages.js';

/**
 * A new share link survives the redirect after its creation (post/redirect/get) in a cookie of a
 * few minutes: the link is stored only as a hash, so the page it is shown on cannot read it back.
 * The cookie names the project (it is shown on that project's page only), is read once and then
 * cleared, is never readable by scripts and is sent on this site's own requests only.
 */
const MAX_AGE_SECONDS = 300;
const TOKEN = /^cis_share_[A-Za-z0-9_-]{20,100}$/;

const cookieName = (request: FastifyRequest) => pageCookieName(request, 'cistats_new_share');

const cookieOptions = (request: FastifyRequest) => ({
  path: cookiePath(request),
  httpOnly: true,
  sameSite: 'strict' as const,
  secure: overHttps(request),
  maxAge: MAX_AGE_SECONDS,
});

/** Keeps the new link's token for the next view of its project's page. */
export function keepNewShareLink(
  request: FastifyRequest,
  reply: FastifyReply,
  projectId: string,
  token: string,
): void {
  reply.setCookie(cookieName(request), `${projectId}.${token}`, cookieOptions(request));
}

/** The token kept for this project's page, if any: taken (the cookie is cleared as it is read). */
export function takeNewShareLink(
  request: FastifyRequest,
  reply: FastifyReply,
  projectId: string,
): string | undefined {
  const kept = request.cookies[cookieName(request)];
  if (kept === undefined) return undefined;
  const dot = kept.indexOf('.');
  if (kept.slice(0, dot) !== projectId) return undefined;
  reply.clearCookie(cookieName(request), { ...cookieOptions(request), maxAge: 0 });
  const token = kept.slice(dot + 1);
  return TOKEN.test(token) ? token : undefined;
}
