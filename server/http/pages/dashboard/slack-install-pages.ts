import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SlackInstallRefused } from '../../../services/channels/slack-install.js';
import { publicBaseOf } from '../../base-path.js';
import { missing, notFound } from './channel-pages.js';
import { layoutOf, redirectTo, sendPage } from './dashboard-pages.js';
import type { Chrome } from './views/dashboard-layout.js';
import { SlackInstallView } from './views/slack-install-view.js';

/** Where Slack sends the browser back: the redirect URL the operator gives the Slack app. */
export const SLACK_CALLBACK_PATH = '/dashboard/slack/callback';

/** What each refusal says, and with which status. */
const REFUSALS: Record<
  SlackInstallRefused['reason'],
  { status: number; heading: string; text: (code?: string) => string }
> = {
  'not-configured': {
    status: 404,
    heading: 'Slack is not set up here',
    text: () =>
      "This server has no Slack app (its operator sets SLACK_CLIENT_ID and SLACK_CLIENT_SECRET). Add a Slack channel with a webhook URL or an app's bot token instead.",
  },
  state: {
    status: 400,
    heading: 'This Slack installation is not valid',
    text: () =>
      'It was already used, it is more than 10 minutes old, or it was started in another session. Start again from the Channels page.',
  },
  denied: {
    status: 400,
    heading: 'The Slack installation was cancelled',
    text: () => 'Slack says the app was not allowed into the workspace.',
  },
  slack: {
    status: 502,
    heading: 'Slack refused the installation',
    text: (code) =>
      `Slack answered ${code ?? 'an unknown error'}. Start again from the Channels page; if it happens again, the server's operator should check the Slack app's client id, secret and redirect URL.`,
  },
  'too-many': {
    status: 409,
    heading: 'This project has too many channels',
    text: () => 'A project has at most 20 channels: delete one, then add Slack again.',
  },
};

type ProjectRequest = FastifyRequest<{ Params: { id: string } }>;
type CallbackRequest = FastifyRequest<{
  Querystring: { state?: unknown; code?: unknown; error?: unknown };
}>;

const one = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * "Add to Slack" (docs/notifications.md#add-to-slack): the Channels page's form posts here (with
 * its CSRF token) and is sent on to Slack's authorize page; Slack sends the browser back to
 * /dashboard/slack/callback, a signed-in page, which makes the channel and opens its edit page,
 * or says why not, having changed nothing.
 */
export function slackInstallPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { slackInstall } = app.services;
    const caller = (request: FastifyRequest) => ({
      accountId: request.session.accountId,
      sessionSecret: request.session.csrfSecret,
    });

    async function refused(request: FastifyRequest, reply: FastifyReply, error: unknown) {
      if (!(error instanceof SlackInstallRefused)) throw error;
      const { status, heading, text } = REFUSALS[error.reason];
      return sendPage(
        reply,
        SlackInstallView({
          ...(await layoutOf(request, reply, chrome)),
          heading,
          text: text(error.code),
          back: { href: '/dashboard/projects', label: 'Back to the projects' },
        }),
        status,
      );
    }

    app.post('/projects/:id/channels/slack', async (request, reply) => {
      const { id } = (request as ProjectRequest).params;
      try {
        const redirectUri = `${publicBaseOf(request)}${SLACK_CALLBACK_PATH}`;
        const authorize = await slackInstall.start(caller(request), id, redirectUri);
        return reply.redirect(authorize, 303);
      } catch (error) {
        if (missing(error)) throw notFound();
        return refused(request, reply, error);
      }
    });

    app.get('/slack/callback', async (request, reply) => {
      const query = (request as CallbackRequest).query;
      try {
        const channel = await slackInstall.finish(caller(request), {
          state: one(query.state),
          code: one(query.code),
          error: one(query.error),
        });
        const project = `/dashboard/projects/${encodeURIComponent(channel.projectId)}`;
        return redirectTo(
          reply,
          `${project}/channels/${encodeURIComponent(channel.id)}/edit`,
          'slack-installed',
        );
      } catch (error) {
        if (missing(error)) throw notFound();
        return refused(request, reply, error);
      }
    });
  };
}
