import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { Forbidden, Unauthorized } from '../../../domain/domain-errors.js';
import {
  noticeOf,
  overHttps,
  redirectTo,
  SESSION_COOKIE,
  SIGN_IN_PATH,
  sendPage,
  sessionCookie,
  textOf,
} from './dashboard-pages.js';
import type { Chrome } from './views/dashboard-layout.js';
import { SignInView } from './views/sign-in-view.js';

/** Failed sign-ins allowed per client address and window; the next attempt gets 429. */
export const SIGN_IN_ATTEMPTS = 10;
export const SIGN_IN_WINDOW_S = 10 * 60;

/**
 * GET/POST /dashboard/sign-in and POST /dashboard/sign-out. A sign-in takes a full key and starts
 * a new session (a new token every time). Failed attempts are counted per client address
 * (`TRUST_PROXY` decides whose address that is) by rate-limiter-flexible, in memory: each server
 * process counts its own.
 */
export function signInPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { sessions } = app.services;
    const failures = new RateLimiterMemory({
      points: SIGN_IN_ATTEMPTS,
      duration: SIGN_IN_WINDOW_S,
    });

    const form = (request: FastifyRequest, reply: FastifyReply, status: number, error?: string) =>
      sendPage(
        reply,
        SignInView({
          chrome,
          csrf: reply.generateCsrf({ secure: overHttps(request) }),
          error,
          notice: noticeOf(request)?.text,
        }),
        status,
      );

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
        const previous = request.cookies[SESSION_COOKIE];
        if (previous) await sessions.signOut(previous);
        reply.setCookie(SESSION_COOKIE, token, sessionCookie(overHttps(request), expiresAt));
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

    app.post('/sign-out', async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      if (token) await sessions.signOut(token);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return redirectTo(reply, SIGN_IN_PATH, 'signed-out');
    });
  };
}
