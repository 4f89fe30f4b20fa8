import Tokens from '@fastify/csrf';
import type { FastifyRequest, preHandlerHookHandler } from 'fastify';

/**
 * What every state-changing dashboard form must pass (issue 22): sent from this site's own pages,
 * and carrying a CSRF token made from a secret the server keeps for the browser that asked for
 * the form. A signed-in form's secret is its session's (stored with it, new at each sign-in, gone
 * at sign-out); the sign-in form's is a pre-session's (`sign-in-pages.ts`). @fastify/csrf makes
 * and checks the tokens (a salt and the SHA-256 of salt and secret); where the secret lives is
 * ours, which is why its plugin (which keeps the secret in a cookie of its own that any page of
 * the same site can plant) is not used.
 */
const tokens = Tokens();

/** A form the guard refused: the 403 page says why. */
export class FormRefused extends Error {
  readonly statusCode = 403;
  constructor(readonly reason: 'expired' | 'cross-site') {
    super(reason === 'expired' ? 'Invalid CSRF token' : 'Form sent from another site');
  }
}

/** The token a form carries, made from `secret`. */
export const formToken = (secret: string): string => tokens.create(secret);

/**
 * Whether the browser says the form came from a page of another origin. `Sec-Fetch-Site`, which
 * pages cannot forge, decides when present: only `same-origin` (and `none`, a person's own
 * action) may post; `same-site` (another port, a sibling subdomain) may not. Without it, the
 * `Origin` must name this host (the request's, as TRUST_PROXY lets it be read, or PUBLIC_URL's),
 * and `Origin: null` is refused. With neither header (not a browser, or a very old one) only the
 * token decides, as before. The same rules as Go's net/http CrossOriginProtection.
 */
export function fromAnotherOrigin(
  request: FastifyRequest,
  publicHost: string | undefined,
): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true;
  }
  return host === '' || (host !== request.host && host !== publicHost);
}

/**
 * A preHandler refusing, with 403 and before any route reads it, a POST sent from another origin
 * (even with a valid token) or without a valid token for `secretOf(request)`.
 */
export function formGuard(
  secretOf: (request: FastifyRequest) => string | undefined,
  publicUrl: string | undefined,
): preHandlerHookHandler {
  const publicHost = publicUrl === undefined ? undefined : new URL(publicUrl).host;
  return (request, _reply, done) => {
    if (request.method !== 'POST') {
      done();
      return;
    }
    if (fromAnotherOrigin(request, publicHost)) {
      done(new FormRefused('cross-site'));
      return;
    }
    const secret = secretOf(request);
    const token = (request.body as { _csrf?: unknown } | undefined)?._csrf;
    const valid = secret !== undefined && typeof token === 'string' && tokens.verify(secret, token);
    done(valid ? undefined : new FormRefused('expired'));
  };
}
