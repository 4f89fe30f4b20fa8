import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CHANNEL_KINDS } from '../../../../contract/channel-targets.js';
import {
  type ChannelTestResult,
  CreateChannelRequest,
  type CreatedChannel,
} from '../../../../contract/channels.js';
import { Conflict, DomainError, Invalid, NotFound } from '../../../domain/domain-errors.js';
import { DASHBOARD_POLICY, securityHeadersOf } from '../security-headers.js';
import { FORM_TEXTS, fieldOf, formOf, rulesOf, URL_REFUSED } from './channel-form.js';
import { layoutOf, redirectTo, sendPage, textOf } from './dashboard-pages.js';
import { type FieldErrors, fieldErrors } from './form-errors.js';
import type { ChannelForm } from './views/channel-rules-fields.js';
import { ChannelsView } from './views/channels-view.js';
import type { Chrome } from './views/dashboard-layout.js';

type ProjectRequest = FastifyRequest<{ Params: { id: string } }>;

export const notFound = () => Object.assign(new Error('no such project'), { statusCode: 404 });

/** Another account's project or channel is as unknown as a missing one: the 404 page. */
export const missing = (error: unknown) =>
  error instanceof DomainError && (error.kind === 'forbidden' || error.kind === 'not-found');

/**
 * /dashboard/projects/<id>/channels: the project's notification channels for its owner (the
 * channel API's service): list, add, send a test message, delete (editing: channel-edit-pages.ts). A generic webhook's signing
 * secret is shown on the answer to its creation only, never after.
 */
export function channelPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { channels, projects, slackInstall } = app.services;
    // "Add to Slack" posts here and is redirected to Slack's authorize page: browsers hold a
    // form's redirect to the page's form-action, which must then name Slack's origin too.
    const slackPolicy = slackInstall.configured()
      ? securityHeadersOf({
          ...DASHBOARD_POLICY,
          formAction: ["'self'", app.config.outbound.slackApiOrigin],
        })['content-security-policy']
      : undefined;

    async function page(
      request: ProjectRequest,
      reply: FastifyReply,
      extra: {
        created?: CreatedChannel;
        tested?: { name: string; result: ChannelTestResult };
        errors?: FieldErrors;
        submitted?: ChannelForm;
      } = {},
    ) {
      const { id } = request.params;
      const { accountId } = request.session;
      const list = await channels.list(accountId, id).catch((error) => {
        throw missing(error) ? notFound() : error;
      });
      const project = (await projects.list({ accountId, projectIds: [id] })).find(
        (p) => p.id === id,
      );
      const errors = extra.errors ?? {};
      if (slackPolicy) reply.header('content-security-policy', slackPolicy);
      return sendPage(
        reply,
        ChannelsView({
          ...(await layoutOf(request, reply, chrome)),
          projectId: id,
          projectName: project?.name ?? id,
          channels: list.channels,
          created: extra.created,
          tested: extra.tested,
          errors,
          submitted: extra.submitted,
          slackInstall: slackPolicy !== undefined,
        }),
        Object.keys(errors).length > 0 ? 400 : extra.created ? 201 : 200,
      );
    }

    const base = (id: string) => `/dashboard/projects/${encodeURIComponent(id)}/channels`;

    app.get('/projects/:id/channels', async (request, reply) =>
      page(request as ProjectRequest, reply),
    );

    app.post('/projects/:id/channels', async (request, reply) => {
      const req = request as ProjectRequest;
      const submitted = formOf(request.body);
      if (!(CHANNEL_KINDS as readonly string[]).includes(submitted.kind)) {
        return page(req, reply, { errors: { kind: 'Choose where to send.' }, submitted });
      }
      const parsed = CreateChannelRequest.safeParse({
        projectId: req.params.id,
        kind: submitted.kind,
        name: submitted.name,
        url: submitted.url,
        rules: rulesOf(submitted),
        ...(submitted.token === '' ? {} : { token: submitted.token }),
        ...(submitted.threadId === '' ? {} : { thread_id: submitted.threadId }),
      });
      if (!parsed.success) {
        return page(req, reply, {
          errors: fieldErrors(parsed.error.issues, fieldOf, FORM_TEXTS),
          submitted,
        });
      }
      try {
        const created = await channels.create(req.session.accountId, parsed.data);
        return page(req, reply, { created });
      } catch (error) {
        if (error instanceof Invalid) {
          return page(req, reply, {
            errors: { url: URL_REFUSED },
            submitted,
          });
        }
        if (error instanceof Conflict) {
          return page(req, reply, {
            errors: { form: 'A project has at most 20 channels.' },
            submitted,
          });
        }
        throw missing(error) ? notFound() : error;
      }
    });

    app.post('/projects/:id/channels/test', async (request, reply) => {
      const req = request as ProjectRequest;
      const channelId = textOf((request.body as { channelId?: unknown } | undefined)?.channelId);
      try {
        const { channels: list } = await channels.list(req.session.accountId, req.params.id);
        const channel = list.find((c) => c.id === channelId);
        if (!channel) throw new NotFound('channel');
        const result = await channels.test(req.session.accountId, channelId);
        return page(req, reply, { tested: { name: channel.name, result } });
      } catch (error) {
        throw missing(error) ? notFound() : error;
      }
    });

    app.post('/projects/:id/channels/delete', async (request, reply) => {
      const req = request as ProjectRequest;
      const channelId = textOf((request.body as { channelId?: unknown } | undefined)?.channelId);
      try {
        const { channels: list } = await channels.list(req.session.accountId, req.params.id);
        if (!list.some((c) => c.id === channelId)) throw new NotFound('channel');
        await channels.delete(req.session.accountId, channelId);
      } catch (error) {
        throw missing(error) ? notFound() : error;
      }
      return redirectTo(reply, base(req.params.id), 'channel-deleted');
    });
  };
}
