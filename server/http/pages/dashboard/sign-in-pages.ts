import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { generateToken } from '../../../domain/api-keys.js';
import { Forbidden, Unauthorized } from '../../../domain/domain-errors.js';
import {
  noticeOf,
  preSessionCookie,
  preSessionCookieName,
  redirectTo,
  SIGN_IN_PATH,
  sendPage,
  sessionCookie,
  sessionCookieName,
  textOf,
} from './dashboard-pages.js';
import { formGuard, formToken } from './form-guard.js';
import type { Chrome } from './views/dashboard-layout.js';
import { SignInView } from './views/sign-in-view.js';

/** Failed sign-ins allowed per client address and window; the next attempt gets 429. */
export const SIGN_IN_ATTEMPTS = 10;
export const SIGN_IN_WINDOW_S = 10 * 60;

/** A pre-session secret as this server makes them (generateToken: 32 bytes, base64url). */
const PRE_SESSION = /^[A-Za-z0-9_-]{43}$/;

/** This browser's pre-session secret, if its cookie holds one. */
function preSessionOf(request: FastifyRequest): string | undefined {
  const secret = request.cookies[preSessionCookieName(request)];
  return secret !== undefined && PRE_SESSION.test(secret) ? secret : undefined;
}

/**
 * GET/POST /dashboard/sign-in. Before there is a session, the sign-in form's CSRF token is made
 * from a pre-session secret the server issues in an HttpOnly, SameSite=Strict cookie
 * (`__Host-cistats_presession` over HTTPS); a post whose token does not match this browser's
 * cookie is refused, as is one from another origin (form-guard.ts), so no other site can sign a
 * browser in to an account of its choosing. A sign-in takes a full key, starts a new session (a
 * new token and a new CSRF secret every time) and ends the pre-session. Failed attempts are
 * counted per client address (`TRUST_PROXY` decides whose address that is) by
 * rate-limiter-flexible, in memory: each server process counts its own.
 */
export function signInPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { sessions } = app.services;
    const failures = new RateLimiterMemory({
      points: SIGN_IN_ATTEMPTS,
      duration: SIGN_IN_WINDOW_S,
    });
    app.addHook('preHandler', formGuard(preSessionOf, app.config.publicUrl));

    const form = (request: FastifyRequest, reply: FastifyReply, status: number, error?: string) => {
      let secret = preSessionOf(request);
      if (secret === undefined) {
        secret = generateToken();
        reply.setCookie(preSessionCookieName(request), secret, preSessionCookie(request));
      }
      return sendPage(
        reply,
        SignInView({ chrome, csrf: formToken(secret), error, notice: noticeOf(request)?.text }),
        status,
      );
    };

    app.get('/sign-in', async (request, reply) => form(request, reply, 200));

    app.post('/sign-in', async (request, reply) => {
      const counted = await failures.get(request.ip);
      if (counted && counted.consumedPoints >= SIGN_IN_ATTEMPTS) {
        const minutes = Math.max(1, Math.ceil(counted.msBeforeNext / 60_000));
        reply.header('retry-after', String(Math.ceil(counted.msBeforeNext / 1000)));
        return form(request, reply, 429, `Too many failed attempts. Try again in ${minutes} min.`);
      }
      const apiKey = textOf((request.body as { api_key?: unknown } | undefined)?.api_key).trim();
      try {
        const { token, expiresAt } = await sessions.signIn(apiKey);
        // A browser that was signed in before gets a new session, not its old one renewed.
        const previous = request.cookies[sessionCookieName(request)];
        if (previous) await sessions.signOut(previous);
        reply.setCookie(sessionCookieName(request), token, sessionCookie(request, expiresAt));
        reply.clearCookie(preSessionCookieName(request), preSessionCookie(request));
        return redirectTo(reply, '/dashboard');
      } catch (error) {
        const refused = error instanceof Unauthorized || error instanceof Forbidden;
        if (!refused) throw error;
        await failures.consume(request.ip).catch(() => undefined);
        return error instanceof Forbidden
          ? form(
              request,
              reply,
              403,
              'This key can only ingest events and metrics: sign in with a full key.',
            )
          : form(request, reply, 401, 'This key is not valid. It may have been revoked.');
      }
    });
  };
}

/**
 * POST /dashboard/sign-out, among the signed-in pages (its form carries the session's token):
 * the session ends, and its CSRF secret with it.
 */
export function signOutPage() {
  return async (app: FastifyInstance) => {
    app.post('/sign-out', async (request, reply) => {
      const token = request.cookies[sessionCookieName(request)];
      if (token) await app.services.sessions.signOut(token);
      reply.clearCookie(sessionCookieName(request), sessionCookie(request, 0));
      return redirectTo(reply, SIGN_IN_PATH, 'signed-out');
    });
  };
}
