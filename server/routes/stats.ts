import type { FastifyInstance, FastifyReply } from 'fastify';
import { SpecError } from '../contract/errors.js';
import { Limits } from '../contract/limits.js';
import type { ProjectList } from '../contract/projects.js';
import type { EventPage, MetricPage } from '../contract/readback.js';
import { HttpError } from '../errors.js';
import { requireApiKey } from '../plugins/auth.js';
import type { Answer } from '../services/idempotency.js';
import { decodeCursor } from '../store/records.js';

interface PageQuery {
  projectId: string;
  limit: number;
  before: number | undefined;
}

/**
 * Query of the read-back endpoints. A missing project id gets `missingProject` (the text of the
 * matching ingest endpoint); a bad limit or cursor gets the generic 400 text.
 */
function parsePageQuery(query: unknown, missingProject: string): PageQuery {
  const { projectId, limit, cursor } = (query ?? {}) as Record<string, unknown>;
  if (
    typeof projectId !== 'string' ||
    projectId === '' ||
    projectId.length > Limits.projectIdLength
  ) {
    throw new HttpError(400, missingProject);
  }
  let pageSize: number = Limits.pageSizeDefault;
  if (limit !== undefined) {
    pageSize = typeof limit === 'string' && /^\d{1,3}$/.test(limit) ? Number(limit) : 0;
    if (pageSize < 1 || pageSize > Limits.pageSizeMax)
      throw new HttpError(400, SpecError.invalidBody);
  }
  let before: number | undefined;
  if (cursor !== undefined) {
    before = typeof cursor === 'string' ? decodeCursor(cursor) : undefined;
    if (before === undefined) throw new HttpError(400, SpecError.invalidBody);
  }
  return { projectId, limit: pageSize, before };
}

/** E6, E7, E8 and the read-back of events and metrics. */
export default async function statsRoutes(app: FastifyInstance) {
  const { projects, records } = app.stores;
  const { ingest, access, idempotency } = app.services;
  app.addHook('onRequest', requireApiKey(SpecError.unauthorizedStats));

  app.get(
    '/stats/get-projects',
    async (request): Promise<ProjectList> => ({
      projects: projects.list(request.account.accountId),
    }),
  );

  /** A replayed answer (same Idempotency-Key, same request) says so in a header. */
  const answer = <T>(reply: FastifyReply, { response, replayed }: Answer<T>): T => {
    if (replayed) reply.header('idempotent-replayed', 'true');
    return response;
  };

  app.post('/stats/ingest-events', async (request, reply) => {
    const key = idempotency.keyOf(request.headers['idempotency-key']);
    return answer(reply, await ingest.event(request.account.accountId, request.body, key));
  });

  app.post('/stats/ingest-metrics', async (request, reply) => {
    const key = idempotency.keyOf(request.headers['idempotency-key']);
    return answer(reply, await ingest.metric(request.account.accountId, request.body, key));
  });

  app.get('/stats/get-events', async (request): Promise<EventPage> => {
    const query = parsePageQuery(request.query, SpecError.invalidBody);
    access.assertOwn(request.account.accountId, query.projectId);
    const page = records.events(query.projectId, query.limit, query.before);
    return { events: page.items, nextCursor: page.nextCursor };
  });

  app.get('/stats/get-metrics', async (request): Promise<MetricPage> => {
    const query = parsePageQuery(request.query, SpecError.projectIdRequired);
    access.assertOwn(request.account.accountId, query.projectId);
    const page = records.metrics(query.projectId, query.limit, query.before);
    return { metrics: page.items, nextCursor: page.nextCursor };
  });
}
