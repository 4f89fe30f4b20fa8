import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Areas, Paths } from '../../../../contract/paths.js';
import {
  type PinnedRecord,
  PinRecordRequest,
  type Retention,
  SetRetentionRequest,
} from '../../../../contract/retention.js';
import { ProjectQuery, readBackErrorText } from '../../../../contract/stats-queries.js';
import { Forbidden, NotFound } from '../../../domain/domain-errors.js';
import { within } from '../area.js';
import { ID } from '../examples.js';

const FOREIGN_PROJECT = new Forbidden('project');

/** A project's retention of raw records, and pinning records against it (full keys only). */
export const retentionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { retention } = app.services;

  app.get(
    within(Areas.stats, Paths.getRetention),
    {
      schema: {
        summary: "A project's retention of raw records (null: kept forever)",
        querystring: ProjectQuery,
      },
      config: {
        invalid: readBackErrorText,
        docs: {
          success: { example: { projectId: ID, retentionDays: 90 } },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request): Promise<Retention> => retention.get(request.account, request.query.projectId),
  );

  app.post(
    within(Areas.stats, Paths.setRetention),
    {
      schema: {
        summary:
          "Set how many days a project's raw records are kept (null: forever); statistics stay",
        body: SetRetentionRequest,
      },
      config: {
        docs: {
          success: { example: { projectId: ID, retentionDays: 90 } },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request): Promise<Retention> =>
      retention.set(request.account, request.body.projectId, request.body.retentionDays),
  );

  app.post(
    within(Areas.stats, Paths.pinRecord),
    {
      schema: {
        summary: 'Pin a record so that retention never deletes it (pinned: false unpins)',
        body: PinRecordRequest,
      },
      config: {
        docs: {
          success: { example: { id: ID, kind: 'event', pinned: true } },
          throws: [FOREIGN_PROJECT, new NotFound('record')],
        },
      },
    },
    async (request): Promise<PinnedRecord> => retention.pin(request.account, request.body),
  );
};
