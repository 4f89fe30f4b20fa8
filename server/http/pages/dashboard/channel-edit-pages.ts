import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ChannelInfo, UpdateChannelRequest } from '../../../../contract/channels.js';
import { Invalid, NotFound } from '../../../domain/domain-errors.js';
import {
  FORM_TEXTS,
  fieldOf,
  formOf,
  formOfChannel,
  rulesOf,
  URL_REFUSED,
} from './channel-form.js';
import { missing, notFound } from './channel-pages.js';
import { layoutOf, redirectTo, sendPage } from './dashboard-pages.js';
import { type FieldErrors, fieldErrors } from './form-errors.js';
import { ChannelEditView } from './views/channel-edit-view.js';
import type { ChannelForm } from './views/channel-rules-fields.js';
import type { Chrome } from './views/dashboard-layout.js';

type EditRequest = FastifyRequest<{ Params: { id: string; channelId: string } }>;

/**
 * /dashboard/projects/<id>/channels/<channel>/edit: changes a channel's name, rules, digest or
 * URL through the channel API's service (update-channel). The URL is write-only: blank keeps the
 * stored one. A refusal is shown beside its field (400) and changes nothing.
 */
export function channelEditPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { channels, projects } = app.services;

    /** The project's channel, the owner's only: anything else is the 404 page. */
    async function channelOf(request: EditRequest): Promise<ChannelInfo> {
      const { id, channelId } = request.params;
      try {
        const { channels: list } = await channels.list(request.session.accountId, id);
        const channel = list.find((c) => c.id === channelId);
        if (!channel) throw new NotFound('channel');
        return channel;
      } catch (error) {
        throw missing(error) ? notFound() : error;
      }
    }

    async function page(
      request: EditRequest,
      reply: FastifyReply,
      channel: ChannelInfo,
      form: ChannelForm,
      errors: FieldErrors = {},
    ) {
      const { id } = request.params;
      const project = (
        await projects.list({ accountId: request.session.accountId, projectIds: [id] })
      ).find((p) => p.id === id);
      return sendPage(
        reply,
        ChannelEditView({
          ...(await layoutOf(request, reply, chrome)),
          projectId: id,
          projectName: project?.name ?? id,
          channel,
          form,
          errors,
        }),
        Object.keys(errors).length > 0 ? 400 : 200,
      );
    }

    app.get('/projects/:id/channels/:channelId/edit', async (request, reply) => {
      const req = request as EditRequest;
      const channel = await channelOf(req);
      return page(req, reply, channel, formOfChannel(channel));
    });

    app.post('/projects/:id/channels/:channelId/edit', async (request, reply) => {
      const req = request as EditRequest;
      const channel = await channelOf(req);
      // The kind is the channel's: it cannot change (its URL is that platform's).
      const submitted = { ...formOf(request.body), kind: channel.kind };
      const parsed = UpdateChannelRequest.safeParse({
        channelId: channel.id,
        name: submitted.name,
        rules: rulesOf(submitted),
        ...(submitted.url.trim() === '' ? {} : { url: submitted.url }),
        ...(submitted.token === '' ? {} : { token: submitted.token }),
        ...(channel.kind === 'discord' ? { thread_id: submitted.threadId || null } : {}),
      });
      if (!parsed.success) {
        const errors = fieldErrors(parsed.error.issues, fieldOf, FORM_TEXTS);
        return page(req, reply, channel, submitted, errors);
      }
      try {
        await channels.update(req.session.accountId, parsed.data);
      } catch (error) {
        if (error instanceof Invalid) {
          const errors: FieldErrors =
            error.reason === 'channel-token' ? { token: FORM_TEXTS.token } : { url: URL_REFUSED };
          return page(req, reply, channel, submitted, errors);
        }
        throw missing(error) ? notFound() : error;
      }
      const list = `/dashboard/projects/${encodeURIComponent(req.params.id)}/channels`;
      return redirectTo(reply, list, 'channel-saved');
    });
  };
}
