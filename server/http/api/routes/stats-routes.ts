import type { FastifyReply, preValidationHookHandler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createProjectErrorText } from '../../../../contract/admin.js';
import { IngestEventRequest } from '../../../../contract/events.js';
import { Headers } from '../../../../contract/headers.js';
import { IDEMPOTENCY_KEY } from '../../../../contract/idempotency-key.js';
import { IngestMetricRequest, ingestMetricErrorText } from '../../../../contract/metrics.js';
import { Areas, Paths } from '../../../../contract/paths.js';
import {
  CreateProjectRequest,
  type Project,
  type ProjectList,
} from '../../../../contract/projects.js';
import type { EventPage, MetricPage } from '../../../../contract/readback.js';
import {
  type CreatedShareLink,
  CreateShareLinkRequest,
  RevokeShareLinkRequest,
  type ShareLinkList,
} from '../../../../contract/share-links.js';
import {
  type BuildSummary,
  BuildSummaryQuery,
  type MetricKeys,
  type MetricSeries,
  ProjectQuery,
  RecordQuery,
  readBackErrorText,
  SeriesQuery,
} from '../../../../contract/stats-queries.js';
import { Invalid } from '../../../domain/domain-errors.js';
import type { Answer } from '../../../services/idempotency-service.js';
import { within } from '../area.js';

/**
 * The Idempotency-Key header, judged before the body (as it always was): a hook rather than a
 * header schema, which Fastify would check after the body.
 */
const checkIdempotencyKey: preValidationHookHandler = (request, _reply, done) => {
  const key = request.headers[Headers.idempotencyKey];
  if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
    done(new Invalid('idempotency-key'));
    return;
  }
  done();
};

/** A replayed answer (same Idempotency-Key, same request) says so in a header. */
function answer<T>(reply: FastifyReply, { response, replayed }: Answer<T>): T {
  if (replayed) reply.header(Headers.idempotentReplayed, 'true');
  return response;
}

const keyOf = (headers: Record<string, unknown>) =>
  headers[Headers.idempotencyKey] as string | undefined;

/** E6, E7, E8 and the read-back of events and metrics. */
export const statsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { ingest, projects, records, stats, shareLinks } = app.services;
  const publicUrl = app.config.publicUrl;

  app.get(
    within(Areas.stats, Paths.getProjects),
    { config: { ingestKeys: true } },
    async (request): Promise<ProjectList> => ({
      projects: await projects.list(request.account),
    }),
  );

  app.post(
    within(Areas.stats, Paths.createProject),
    { schema: { body: CreateProjectRequest }, config: { invalid: createProjectErrorText } },
    async (request, reply): Promise<Project> =>
      reply.code(201).send(await projects.create(request.account.accountId, request.body.name)),
  );

  app.post(
    within(Areas.stats, Paths.ingestEvents),
    {
      schema: { body: IngestEventRequest },
      config: { ingestKeys: true },
      preValidation: checkIdempotencyKey,
    },
    async (request, reply) => {
      // The hosted service's clients name the webhook `discordWebhook`: it is our `chatWebhook`.
      const { discordWebhook, ...event } = request.body;
      if (discordWebhook !== undefined) event.chatWebhook = discordWebhook;
      return answer(reply, await ingest.event(request.account, event, keyOf(request.headers)));
    },
  );

  app.post(
    within(Areas.stats, Paths.ingestMetrics),
    {
      schema: { body: IngestMetricRequest },
      config: { invalid: ingestMetricErrorText, ingestKeys: true },
      preValidation: checkIdempotencyKey,
    },
    async (request, reply) =>
      answer(reply, await ingest.metric(request.account, request.body, keyOf(request.headers))),
  );

  app.get(
    within(Areas.stats, Paths.getEvents),
    { schema: { querystring: RecordQuery }, config: { invalid: readBackErrorText } },
    async (request): Promise<EventPage> => records.events(request.account.accountId, request.query),
  );

  app.get(
    within(Areas.stats, Paths.getMetrics),
    { schema: { querystring: RecordQuery }, config: { invalid: readBackErrorText } },
    async (request): Promise<MetricPage> =>
      records.metrics(request.account.accountId, request.query),
  );

  app.get(
    within(Areas.stats, Paths.getMetricKeys),
    { schema: { querystring: ProjectQuery }, config: { invalid: readBackErrorText } },
    async (request): Promise<MetricKeys> =>
      stats.keys(request.account.accountId, request.query.projectId),
  );

  app.get(
    within(Areas.stats, Paths.getMetricSeries),
    { schema: { querystring: SeriesQuery }, config: { invalid: readBackErrorText } },
    async (request): Promise<MetricSeries> =>
      stats.series(request.account.accountId, request.query),
  );

  app.get(
    within(Areas.stats, Paths.getBuildSummary),
    { schema: { querystring: BuildSummaryQuery }, config: { invalid: readBackErrorText } },
    async (request): Promise<BuildSummary> =>
      stats.buildSummary(request.account.accountId, request.query),
  );

  app.post(
    within(Areas.stats, Paths.createShareLink),
    { schema: { body: CreateShareLinkRequest } },
    async (request, reply): Promise<CreatedShareLink> => {
      const origin = publicUrl ?? `${request.protocol}://${request.host}`;
      const link = await shareLinks.create(
        request.account.accountId,
        request.body.projectId,
        origin,
      );
      // The token is in this answer and nowhere else.
      return reply.code(201).header('cache-control', 'no-store').send(link);
    },
  );

  app.get(
    within(Areas.stats, Paths.getShareLinks),
    { schema: { querystring: ProjectQuery }, config: { invalid: readBackErrorText } },
    async (request): Promise<ShareLinkList> =>
      shareLinks.list(request.account.accountId, request.query.projectId),
  );

  app.post(
    within(Areas.stats, Paths.revokeShareLink),
    { schema: { body: RevokeShareLinkRequest } },
    async (request) => {
      await shareLinks.revoke(request.account.accountId, request.body.token);
      return { success: true };
    },
  );
};
