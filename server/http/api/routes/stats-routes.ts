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
import {
  type EventPage,
  getEventsErrorText,
  getMetricsErrorText,
  type MetricPage,
  PageQuery,
} from '../../../../contract/readback.js';
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
  const { ingest, projects, records } = app.services;

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
    async (request, reply) =>
      answer(reply, await ingest.event(request.account, request.body, keyOf(request.headers))),
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
    { schema: { querystring: PageQuery }, config: { invalid: getEventsErrorText } },
    async (request): Promise<EventPage> => records.events(request.account.accountId, request.query),
  );

  app.get(
    within(Areas.stats, Paths.getMetrics),
    { schema: { querystring: PageQuery }, config: { invalid: getMetricsErrorText } },
    async (request): Promise<MetricPage> =>
      records.metrics(request.account.accountId, request.query),
  );
};
