import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CHANNEL_KINDS } from '../../../../contract/channel-targets.js';
import {
  type ChannelTestResult,
  CreateChannelRequest,
  type CreatedChannel,
  NOTIFY_CHOICES,
} from '../../../../contract/channels.js';
import { Conflict, DomainError, Invalid, NotFound } from '../../../domain/domain-errors.js';
import { layoutOf, redirectTo, sendPage, textOf } from './dashboard-pages.js';
import { type FieldErrors, fieldErrors } from './form-errors.js';
import { type ChannelForm, ChannelsView } from './views/channels-view.js';
import type { Chrome } from './views/dashboard-layout.js';

type ProjectRequest = FastifyRequest<{ Params: { id: string } }>;

const notFound = () => Object.assign(new Error('no such project'), { statusCode: 404 });

/** Another account's project or channel is as unknown as a missing one: the 404 page. */
const missing = (error: unknown) =>
  error instanceof DomainError && (error.kind === 'forbidden' || error.kind === 'not-found');

/** Comma- or line-separated globs or types: the API's lists, none when empty. */
const listOf = (text: string): string[] =>
  text
    .split(/[,\n]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');

/** The form's fields as the API's create-channel request (what the schema then judges). */
function requestOf(projectId: string, form: ChannelForm) {
  const branches = listOf(form.branches);
  return {
    projectId,
    kind: form.kind,
    name: form.name,
    url: form.url,
    rules: {
      notify: form.notify,
      ...(branches.length > 0 ? { branches } : {}),
      ...(form.mention.trim() ? { mention: form.mention.trim() } : {}),
      ...(form.digest === 'day' || form.digest === 'week'
        ? { digest: { every: form.digest, at: form.digestAt } }
        : {}),
    },
  };
}

/** What the form says of a refused field, in its own words. */
const FORM_TEXTS = {
  notify: 'Tick at least one, or choose a digest.',
  digest: 'Give the digest time as HH:MM, UTC.',
  mention: 'A Discord <@&role> or <@user>, or a Slack <!subteam^ID>, <!here> or <@user>.',
};

/** A schema issue's path (`rules.notify`) as the form field it belongs to. */
const fieldOf = (path: readonly PropertyKey[]): string | undefined => {
  const [first, second] = path;
  if (first === 'rules' && second === 'digest') return 'digest';
  if (first === 'rules') return typeof second === 'string' ? second : 'notify';
  return typeof first === 'string' ? first : undefined;
};

/**
 * /dashboard/projects/<id>/channels: the project's notification channels for its owner (the
 * channel API's service): list, add, send a test message, delete. A generic webhook's signing
 * secret is shown on the answer to its creation only, never after.
 */
export function channelPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { channels, projects } = app.services;

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
      const form = (request.body ?? {}) as Record<string, unknown>;
      const notify = Array.isArray(form.notify) ? form.notify.map(textOf) : [];
      const submitted: ChannelForm = {
        kind: textOf(form.kind),
        name: textOf(form.name),
        url: textOf(form.url),
        notify: notify.filter((choice) =>
          (NOTIFY_CHOICES as readonly string[]).includes(choice),
        ) as ChannelForm['notify'],
        branches: textOf(form.branches),
        mention: textOf(form.mention),
        digest: textOf(form.digest),
        digestAt: textOf(form.digestAt) || '09:00',
      };
      if (!(CHANNEL_KINDS as readonly string[]).includes(submitted.kind)) {
        return page(req, reply, { errors: { kind: 'Choose where to send.' }, submitted });
      }
      const parsed = CreateChannelRequest.safeParse(requestOf(req.params.id, submitted));
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
            errors: { url: 'This is not a webhook URL of that kind (HTTPS, on its own hosts).' },
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
