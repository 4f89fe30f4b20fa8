import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ChannelIdRequest,
  type ChannelInfo,
  type ChannelList,
  type ChannelTestResult,
  CreateChannelRequest,
  type CreatedChannel,
  UpdateChannelRequest,
} from '../../../../contract/channels.js';
import { Areas, Paths } from '../../../../contract/paths.js';
import { ProjectQuery, readBackErrorText } from '../../../../contract/stats-queries.js';
import { Conflict, Forbidden, Invalid, NotFound } from '../../../domain/domain-errors.js';
import { within } from '../area.js';
import { AT, ID } from '../examples.js';

const CHANNEL: ChannelInfo = {
  id: ID,
  projectId: ID,
  kind: 'slack',
  name: 'CI in #builds',
  target: 'hooks.slack.com/services/T0001/B0001/…',
  rules: { notify: ['failures', 'changes'], branches: ['main'], mention: '<!here>' },
  thread_id: null,
  created_at: AT,
  updated_at: AT,
};
const NO_CHANNEL = new NotFound('channel');

/** A project's notification channels (issue 30): its owner's only (full keys, not ingest keys). */
export const channelRoutes: FastifyPluginAsyncZod = async (app) => {
  const { channels } = app.services;

  app.post(
    within(Areas.stats, Paths.createChannel),
    {
      schema: {
        summary: 'Add a notification channel to a project (a signing secret is shown once)',
        body: CreateChannelRequest,
      },
      config: {
        docs: {
          success: { status: 201, example: CHANNEL },
          throws: [
            new Forbidden('project'),
            new Invalid('channel-url'),
            new Conflict('too-many-channels'),
          ],
        },
      },
    },
    async (request, reply): Promise<CreatedChannel> => {
      const created = await channels.create(request.account.accountId, request.body);
      // A generic webhook's signing secret is in this answer and nowhere else.
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.get(
    within(Areas.stats, Paths.getChannels),
    {
      schema: { summary: "List a project's notification channels", querystring: ProjectQuery },
      config: {
        invalid: readBackErrorText,
        docs: {
          success: { example: { channels: [CHANNEL] } },
          throws: [new Forbidden('project')],
        },
      },
    },
    async (request): Promise<ChannelList> =>
      channels.list(request.account.accountId, request.query.projectId),
  );

  app.post(
    within(Areas.stats, Paths.updateChannel),
    {
      schema: {
        summary: "Change a channel's name, URL, rules, bot token or Discord thread",
        body: UpdateChannelRequest,
      },
      config: {
        docs: {
          success: { example: CHANNEL },
          throws: [
            NO_CHANNEL,
            new Invalid('channel-url'),
            new Invalid('channel-token'),
            new Invalid('channel-thread'),
          ],
        },
      },
    },
    async (request): Promise<ChannelInfo> =>
      channels.update(request.account.accountId, request.body),
  );

  app.post(
    within(Areas.stats, Paths.deleteChannel),
    {
      schema: { summary: 'Delete a channel', body: ChannelIdRequest },
      config: { docs: { success: { example: { success: true } }, throws: [NO_CHANNEL] } },
    },
    async (request) => {
      await channels.delete(request.account.accountId, request.body.channelId);
      return { success: true };
    },
  );

  app.post(
    within(Areas.stats, Paths.testChannel),
    {
      schema: { summary: 'Send a sample message to a channel now', body: ChannelIdRequest },
      config: {
        docs: {
          success: { example: { delivered: false, error: 'Slack answered HTTP 404: no_service' } },
          throws: [NO_CHANNEL],
        },
      },
    },
    async (request): Promise<ChannelTestResult> =>
      channels.test(request.account.accountId, request.body.channelId),
  );
};
