import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createProjectErrorText } from '../../../../contract/admin.js';
import { OwnError } from '../../../../contract/error-texts.js';
import { IngestEventRequest } from '../../../../contract/events.js';
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
  MetricKeysQuery,
  type MetricSeries,
  ProjectQuery,
  RecordQuery,
  SeriesQuery,
} from '../../../../contract/stats-queries.js';
import { fieldText } from '../../../../contract/verdicts.js';
import {
  Conflict,
  Forbidden,
  Invalid,
  InvalidField,
  NotFound,
  ReadTimeout,
} from '../../../domain/domain-errors.js';
import { publicBaseOf } from '../../base-path.js';
import { ProjectBusy } from '../../heavy-reads/project-gate.js';
import { within } from '../area.js';
import { AT, ID, PROJECT } from '../examples.js';
import { answer, checkIdempotencyKey, idempotencyKeyOf as keyOf } from '../idempotency-header.js';
import { readRoute } from '../read-route.js';
import { channelRoutes } from './channel-routes.js';
import { exportRoutes } from './export-routes.js';
import { projectPageRoutes } from './project-page-routes.js';
import { retentionRoutes } from './retention-routes.js';
import { summaryRoutes } from './summary-routes.js';
import { verdictRoutes } from './verdict-routes.js';

const FOREIGN_PROJECT = new Forbidden('project');
/** A statistics read that would read too much, or ran past READ_TIMEOUT_MS (PostgreSQL). */
const TOO_MUCH = new Invalid('read-budget');
const TOO_LONG = new ReadTimeout('read-timeout');

/** An E7 body with its `discordWebhook` as `chatWebhook` (which it replaces). */
function renamed({ discordWebhook, ...event }: IngestEventRequest): IngestEventRequest {
  return { ...event, chatWebhook: discordWebhook };
}

/** E6, E7, E8 and the read-back of events and metrics. */
export const statsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { ingest, projects, records, stats, shareLinks } = app.services;
  /**
   * A read of a project's records or statistics, under the project's heavy-read cap (shared with
   * its pages and badges): past the cap and its queue, 429 with Retry-After.
   */
  const heavy = async <T>(reply: FastifyReply, projectId: string, read: () => Promise<T>) => {
    try {
      return await app.heavyReads.run(projectId, read);
    } catch (error) {
      if (error instanceof ProjectBusy) {
        reply.header('retry-after', String(error.retryAfterS));
        throw Object.assign(new Error(OwnError.projectBusy), { statusCode: 429 });
      }
      throw error;
    }
  };
  await app.register(channelRoutes);
  await app.register(summaryRoutes);

  app.get(
    within(Areas.stats, Paths.getProjects),
    {
      schema: { summary: 'E6 List projects' },
      config: { ingestKeys: true, docs: { success: { example: { projects: [PROJECT] } } } },
    },
    async (request): Promise<ProjectList> => ({
      projects: await projects.list(request.account),
    }),
  );

  app.post(
    within(Areas.stats, Paths.createProject),
    {
      schema: { summary: 'Create a project', body: CreateProjectRequest },
      config: {
        invalid: createProjectErrorText,
        docs: {
          success: { status: 201, example: PROJECT },
          throws: [new Conflict('project-name-taken')],
        },
      },
    },
    async (request, reply): Promise<Project> =>
      reply.code(201).send(await projects.create(request.account.accountId, request.body.name)),
  );

  app.post(
    within(Areas.stats, Paths.ingestEvents),
    {
      schema: {
        summary: 'E7 Add an event (optionally notifying a Discord webhook)',
        body: IngestEventRequest,
      },
      config: {
        ingestKeys: true,
        docs: {
          success: { example: { message: 'Event created successfully.', id: ID } },
          throws: [FOREIGN_PROJECT],
        },
      },
      preValidation: checkIdempotencyKey,
    },
    async (request, reply) => {
      // The hosted service's clients name the webhook `discordWebhook`: it is our `chatWebhook`.
      // The body is copied only then: a rest copy of every body cost E7 about 1.5 µs.
      const event =
        request.body.discordWebhook === undefined ? request.body : renamed(request.body);
      return answer(reply, await ingest.event(request.account, event, keyOf(request.headers)));
    },
  );

  app.post(
    within(Areas.stats, Paths.ingestMetrics),
    {
      schema: { summary: 'E8 Add a metric', body: IngestMetricRequest },
      config: {
        invalid: ingestMetricErrorText,
        ingestKeys: true,
        docs: {
          success: { example: { message: 'Metric ingested successfully.', id: ID } },
          throws: [
            FOREIGN_PROJECT,
            new InvalidField(
              'payload.directions.duration_ms',
              fieldText('payload.directions.duration_ms'),
            ),
          ],
        },
      },
      preValidation: checkIdempotencyKey,
    },
    async (request, reply) =>
      answer(reply, await ingest.metric(request.account, request.body, keyOf(request.headers))),
  );

  app.get(
    within(Areas.stats, Paths.getEvents),
    readRoute(
      "Read a project's events, newest first",
      RecordQuery,
      {
        events: [
          {
            id: ID,
            projectId: ID,
            eventType: 'build',
            description: null,
            payload: { status: 'success' },
            color: null,
            created_at: AT,
            notification: null,
          },
        ],
        nextCursor: null,
      },
      [FOREIGN_PROJECT],
    ),
    async (request, reply): Promise<EventPage> =>
      heavy(reply, request.query.projectId, () =>
        records.events(request.account.accountId, request.query),
      ),
  );

  app.get(
    within(Areas.stats, Paths.getMetrics),
    readRoute(
      "Read a project's metrics, newest first",
      RecordQuery,
      {
        metrics: [{ id: ID, projectId: ID, payload: { duration_ms: 5400 }, created_at: AT }],
        nextCursor: null,
      },
      [FOREIGN_PROJECT],
    ),
    async (request, reply): Promise<MetricPage> =>
      heavy(reply, request.query.projectId, () =>
        records.metrics(request.account.accountId, request.query),
      ),
  );

  app.get(
    within(Areas.stats, Paths.getMetricKeys),
    readRoute(
      "List a project's metric series keys, a page at a time",
      MetricKeysQuery,
      {
        keys: [
          {
            key: 'duration_ms',
            count: 42,
            last_value: 5400,
            last_at: AT,
            unit: 'ms',
            direction: 'lower',
          },
        ],
        nextCursor: null,
      },
      [FOREIGN_PROJECT, TOO_LONG],
    ),
    async (request, reply): Promise<MetricKeys> =>
      heavy(reply, request.query.projectId, () =>
        stats.keys(request.account.accountId, request.query.projectId, {
          after: request.query.cursor,
          limit: request.query.limit,
        }),
      ),
  );

  app.get(
    within(Areas.stats, Paths.getMetricSeries),
    readRoute(
      'One metric series in time buckets',
      SeriesQuery,
      {
        key: 'duration_ms',
        from: AT,
        to: AT,
        buckets: [
          { start: AT, end: AT, count: 3, min: 1, max: 9, avg: 5, p50: 5, p95: 9, last: 9 },
        ],
      },
      [FOREIGN_PROJECT, TOO_MUCH, TOO_LONG],
    ),
    async (request, reply): Promise<MetricSeries> =>
      heavy(reply, request.query.projectId, () =>
        stats.series(request.account.accountId, request.query),
      ),
  );

  app.get(
    within(Areas.stats, Paths.getBuildSummary),
    readRoute(
      'Build outcomes in time buckets, and the success rate',
      BuildSummaryQuery,
      {
        from: AT,
        to: AT,
        buckets: [{ start: AT, end: AT, success: 9, failure: 1, cancelled: 0, other: 0 }],
        success_rate: 0.9,
      },
      [FOREIGN_PROJECT, TOO_MUCH, TOO_LONG],
    ),
    async (request, reply): Promise<BuildSummary> =>
      heavy(reply, request.query.projectId, () =>
        stats.buildSummary(request.account.accountId, request.query),
      ),
  );

  app.post(
    within(Areas.stats, Paths.createShareLink),
    {
      schema: {
        summary: "Create a read-only link to a project's statistics (shown once)",
        body: CreateShareLinkRequest,
      },
      config: {
        docs: {
          success: {
            status: 201,
            example: { token: 'cis_share_…', url: 'https://stats.example.com/share/cis_share_…' },
          },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request, reply): Promise<CreatedShareLink> => {
      const origin = publicBaseOf(request);
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
    readRoute(
      "List a project's share links",
      ProjectQuery,
      { links: [{ id: ID, prefix: 'cis_share_AbCd', created_at: AT }] },
      [FOREIGN_PROJECT],
    ),
    async (request): Promise<ShareLinkList> =>
      shareLinks.list(request.account.accountId, request.query.projectId),
  );

  app.post(
    within(Areas.stats, Paths.revokeShareLink),
    {
      schema: { summary: 'Revoke a share link', body: RevokeShareLinkRequest },
      config: {
        docs: { success: { example: { success: true } }, throws: [new NotFound('share-link')] },
      },
    },
    async (request) => {
      await shareLinks.revoke(request.account.accountId, request.body.token);
      return { success: true };
    },
  );

  await app.register(retentionRoutes);
  await app.register(exportRoutes);
  await app.register(verdictRoutes);
  await app.register(projectPageRoutes);
};
