import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import qs from 'qs';
import { identifyCaller } from '../../../storage/read-routing/read-scope.js';
import { addressOf } from '../../base-path.js';
import { copyScript } from '../copy-script.js';
import type { PageKit } from '../page-kit.js';
import { ownerStatsPages } from '../project-stats/owner-stats-pages.js';
import { refuseNulInForm } from '../refused-text.js';
import { DASHBOARD_POLICY, securityHeaders } from '../security-headers.js';
import { testsPages } from '../tests/tests-pages.js';
import { accountPages } from './account-pages.js';
import { channelEditPages } from './channel-edit-pages.js';
import { channelPages } from './channel-pages.js';
import { SIGN_IN_PATH, sessionCookie, sessionCookieName } from './dashboard-pages.js';
import { dataPages } from './data-pages.js';
import { formGuard } from './form-guard.js';
import { keyPages } from './key-pages.js';
import { overviewPages } from './overview-pages.js';
import { projectPages } from './project-pages.js';
import { signInPages, signOutPage } from './sign-in-pages.js';
import { sitePages } from './site-pages.js';
import { slackInstallPages } from './slack-install-pages.js';
import { verdictPages } from './verdict-pages.js';

/**
 * Form fields nest (`blocks[2][content]`); qs keeps prototypes out and bounds the depth. A NUL in
 * any field is refused (contract/text-rule.ts) before a form route reads it.
 */
const parseForm = (body: string) =>
  refuseNulInForm(
    qs.parse(body, { depth: 3, arrayLimit: 200, parameterLimit: 2_000, allowPrototypes: false }),
  );

/**
 * The account dashboard under /dashboard: forms (application/x-www-form-urlencoded), each posted
 * from its own pages with a CSRF token of its session (form-guard.ts), sessions in an HttpOnly
 * cookie, and nothing cached by the browser (`no-store`). Cookie and form parsing live here only,
 * so the public page does not pay for them.
 */
export function dashboardContext(kit: PageKit) {
  return async (app: FastifyInstance) => {
    await app.register(fastifyCookie);
    await app.register(fastifyFormbody, { parser: parseForm });
    app.addHook('onRequest', securityHeaders(DASHBOARD_POLICY));
    app.addHook('onRequest', (_request, reply, done) => {
      reply.header('cache-control', 'no-store');
      done();
    });

    const chrome = { stylesheet: kit.dashboardStylesheet, favicon: kit.favicon };
    await app.register(signInPages(chrome));

    // Everything else needs a session: without one, to the sign-in page.
    const requireSession: onRequestHookHandler = (request, reply, done) => {
      const token = request.cookies[sessionCookieName(request)];
      app.services.sessions.authenticate(token).then((session) => {
        if (!session) {
          reply.redirect(addressOf(app, SIGN_IN_PATH), 303);
          return;
        }
        request.session = session;
        // Read-your-writes: the account's dashboard sessions see their own forms' changes at once.
        identifyCaller(`session:${session.accountId}`);
        if (session.renewed && token) {
          reply.setCookie(
            sessionCookieName(request),
            token,
            sessionCookie(request, session.expiresAt),
          );
        }
        done();
      }, done);
    };
    await app.register(async (signedIn) => {
      signedIn.decorateRequest('session', null as never);
      signedIn.addHook('onRequest', requireSession);
      // Every state-changing form: from this site, with a token of this session's secret.
      signedIn.addHook(
        'preHandler',
        formGuard((request) => request.session.csrfSecret, app.config.publicUrl),
      );
      for (const pages of [
        overviewPages,
        sitePages,
        accountPages,
        projectPages,
        dataPages,
        verdictPages,
        channelPages,
        channelEditPages,
        slackInstallPages,
      ]) {
        await signedIn.register(pages(chrome));
      }
      await signedIn.register(keyPages(chrome, { styles: [], scripts: [copyScript(kit.assets)] }));
      await signedIn.register(signOutPage());
      await signedIn.register(ownerStatsPages(chrome, kit.statsAssets));
      await signedIn.register(testsPages(chrome));
    });
  };
}
