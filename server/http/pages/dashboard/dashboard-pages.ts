import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import type { Session } from '../../../services/session-service.js';
import { addressOf } from '../../base-path.js';
import { renderDocument } from '../html-document.js';
import { formToken } from './form-guard.js';
import type { Chrome } from './views/dashboard-layout.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on every signed-in dashboard route. */
    session: Session;
  }
}

export const SIGN_IN_PATH = '/dashboard/sign-in';

/** Cookies are Secure when the request came over HTTPS, directly or through a trusted proxy. */
export const overHttps = (request: FastifyRequest) => request.protocol === 'https';

/**
 * The pages' cookie names. Over HTTPS they take the `__Host-` prefix: a browser then only
 * accepts them Secure, for `Path=/` and from this very host, so no sibling subdomain (nor plain
 * HTTP) can plant one; a cookie of the plain name is ignored there. Under a base path `__Host-`
 * cannot be had (it demands `Path=/`, which would send them to the host's other applications):
 * they take `__Secure-` (Secure, from HTTPS only) and the base path as their Path
 * (docs/decisions.md).
 */
export const cookieName = (request: FastifyRequest, name: string) =>
  !overHttps(request)
    ? name
    : request.server.config.basePath === ''
      ? `__Host-${name}`
      : `__Secure-${name}`;

/** The pages' cookies' Path: the whole app, and nothing else of the host under a base path. */
export const cookiePath = (request: FastifyRequest) => request.server.config.basePath || '/';
export const sessionCookieName = (request: FastifyRequest) =>
  cookieName(request, 'cistats_session');
export const preSessionCookieName = (request: FastifyRequest) =>
  cookieName(request, 'cistats_presession');

/** The session cookie: never readable by scripts, sent on top-level navigations only. */
export function sessionCookie(request: FastifyRequest, expiresAt: number) {
  return {
    path: cookiePath(request),
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: overHttps(request),
    expires: new Date(expiresAt),
  };
}

/** The pre-session cookie (the sign-in form's CSRF secret): for this browser's own requests only. */
export const preSessionCookie = (request: FastifyRequest) => ({
  path: cookiePath(request),
  httpOnly: true,
  sameSite: 'strict' as const,
  secure: overHttps(request),
});

export function sendPage(reply: FastifyReply, view: VNode, status = 200): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(renderDocument(view, reply.server.config.basePath));
}

/** POST-redirect-GET: 303 to the page, with what happened as a notice code. */
export function redirectTo(reply: FastifyReply, path: string, done?: Notice): FastifyReply {
  return reply.redirect(addressOf(reply.server, done ? `${path}?done=${done}` : path), 303);
}

/** What a redirect may say happened; anything else in `?done=` is ignored. */
const NOTICES = {
  'site-saved': 'Your page is saved.',
  'site-shown': 'Your page is visible.',
  'site-hidden': 'Your page is hidden.',
  'name-saved': 'Your display name is saved.',
  'forwarding-on': 'Email forwarding is on.',
  'forwarding-off': 'Email forwarding is off.',
  'key-revoked': 'The key is revoked. Requests with it are refused from now on.',
  'project-created': 'The project is created.',
  'channel-deleted': 'The channel is deleted: it gets no more messages.',
  'channel-saved': 'The channel is saved: its messages follow its new rules from now on.',
  'slack-installed':
    'Slack is connected: the channel is added, hearing of failures and broken or fixed builds. Choose what it hears of here.',
  'share-link-revoked': 'The share link is revoked: it shows nothing from now on.',
  'duration-key-saved': 'The build-duration key is saved.',
  'mark-types-saved': 'The event types marked on the charts are saved.',
  'key-display-saved': 'The key is pinned, hidden or shown as asked.',
  'signed-out': 'You are signed out.',
  'retention-saved':
    'The retention is saved: records past it are deleted by the next sweep; pinned ones stay.',
  'series-saved': "The series' unit and direction are saved.",
  'threshold-created': 'The threshold is created: it judges the values stored from now on.',
  'threshold-saved': 'The threshold is saved: it judges the values stored from now on.',
  'threshold-deleted': 'The threshold is deleted.',
  'alert-dismissed': 'The alert is dismissed.',
  'alert-reactivated': 'The alert is active again.',
  'verdict-settings-saved': "The project's verdict settings are saved.",
  'reevaluation-queued':
    'The re-evaluation is queued: the verdicts and alerts change as it runs, in the background.',
} as const;
export type Notice = keyof typeof NOTICES;

export function noticeOf(request: FastifyRequest): { tone: 'ok'; text: string } | undefined {
  const done = (request.query as { done?: unknown }).done;
  const text = typeof done === 'string' ? NOTICES[done as Notice] : undefined;
  return text === undefined ? undefined : { tone: 'ok', text };
}

/** What every signed-in page's layout needs. */
export async function layoutOf(
  request: FastifyRequest,
  _reply: FastifyReply,
  chrome: Chrome,
): Promise<{ chrome: Chrome; csrf: string; who: string; notice: ReturnType<typeof noticeOf> }> {
  const { alias } = await request.server.services.displayName.get(request.session.accountId);
  return {
    chrome,
    csrf: formToken(request.session.csrfSecret),
    who: alias ?? 'No display name yet',
    notice: noticeOf(request),
  };
}

/** The form's value of a field as text ('' when absent or not text). */
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');
