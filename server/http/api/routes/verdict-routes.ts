import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Areas } from '../../../../contract/paths.js';
import { ProjectQuery, readBackErrorText } from '../../../../contract/stats-queries.js';
import {
  AlertQuery,
  alertQueryErrorText,
  ChangePointQuery,
  CompareQuery,
  CreateThresholdRequest,
  changePointErrorText,
  compareErrorText,
  IdRequest,
  idErrorText,
  ReevaluateRequest,
  reevaluateErrorText,
  thresholdErrorText,
  UpdateProjectRequest,
  UpdateSeriesRequest,
  UpdateThresholdRequest,
  updateProjectErrorText,
  updateSeriesErrorText,
  VerdictPaths,
} from '../../../../contract/verdicts.js';
import { Forbidden, InvalidField, NotFound } from '../../../domain/domain-errors.js';
import { within } from '../area.js';
import { AT, ID } from '../examples.js';

const FOREIGN_PROJECT = new Forbidden('project');
const BAD_MODEL = new InvalidField(
  'upper_boundary',
  'upper_boundary must be a probability in [0.5, 1) for t_test.',
);

const THRESHOLD = {
  id: ID,
  projectId: ID,
  key: 'bench/*',
  branch: 'main',
  test: 't_test',
  lower_boundary: null,
  upper_boundary: 0.99,
  min_sample_size: 8,
  max_sample_size: 64,
  window_seconds: null,
  created_at: AT,
};

const ALERT = {
  id: ID,
  key: 'bench/parse',
  branch: 'main',
  record_id: ID,
  commit: '3f2a9c1e0b7d',
  value: 1520,
  baseline: 1210.5,
  limit: 1391.2,
  side: 'upper',
  test: 't_test',
  created_at: AT,
  status: 'active',
};

/** Verdicts (issue 23): owner keys only, like every /stats route without `ingestKeys`. */
export const verdictRoutes: FastifyPluginAsyncZod = async (app) => {
  const { verdictSettings: settings, verdicts, reevaluations } = app.services;
  const path = (p: string) => within(Areas.stats, p);

  app.post(
    path(VerdictPaths.updateSeries),
    {
      schema: { summary: "Set a series key's unit and direction", body: UpdateSeriesRequest },
      config: {
        invalid: updateSeriesErrorText,
        docs: {
          success: { example: { key: 'bundle_bytes', unit: 'bytes', direction: 'lower' } },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request) => settings.updateSeries(request.account.accountId, request.body),
  );

  app.post(
    path(VerdictPaths.updateProject),
    {
      schema: {
        summary: "Set a project's default branch, default threshold and alert webhook",
        body: UpdateProjectRequest,
      },
      config: {
        invalid: updateProjectErrorText,
        docs: {
          success: {
            example: {
              projectId: ID,
              default_branch: 'main',
              default_branch_set: true,
              default_threshold: true,
              chat_webhook: false,
              reevaluations_queued: 0,
            },
          },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request) => settings.updateProject(request.account.accountId, request.body),
  );

  app.get(
    path(VerdictPaths.getProjectSettings),
    {
      schema: { summary: "A project's verdict settings", querystring: ProjectQuery },
      config: {
        invalid: readBackErrorText,
        docs: {
          success: {
            example: {
              projectId: ID,
              default_branch: 'main',
              default_branch_set: false,
              default_threshold: true,
              chat_webhook: false,
              reevaluations_queued: 0,
            },
          },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request) => settings.projectSettings(request.account.accountId, request.query.projectId),
  );

  app.post(
    path(VerdictPaths.createThreshold),
    {
      schema: { summary: 'Create a threshold', body: CreateThresholdRequest },
      config: {
        invalid: thresholdErrorText,
        docs: {
          success: { status: 201, example: { threshold: THRESHOLD } },
          throws: [FOREIGN_PROJECT, BAD_MODEL],
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        threshold: await settings.createThreshold(request.account.accountId, request.body),
      }),
  );

  app.get(
    path(VerdictPaths.getThresholds),
    {
      schema: { summary: "A project's thresholds", querystring: ProjectQuery },
      config: {
        invalid: readBackErrorText,
        docs: { success: { example: { thresholds: [THRESHOLD] } }, throws: [FOREIGN_PROJECT] },
      },
    },
    async (request) => ({
      thresholds: await settings.thresholds(request.account.accountId, request.query.projectId),
    }),
  );

  app.post(
    path(VerdictPaths.updateThreshold),
    {
      schema: { summary: 'Change a threshold', body: UpdateThresholdRequest },
      config: {
        invalid: thresholdErrorText,
        docs: {
          success: { example: { threshold: THRESHOLD } },
          throws: [new NotFound('threshold'), BAD_MODEL],
        },
      },
    },
    async (request) => ({
      threshold: await settings.updateThreshold(request.account.accountId, request.body),
    }),
  );

  app.post(
    path(VerdictPaths.deleteThreshold),
    {
      schema: { summary: 'Delete a threshold', body: IdRequest },
      config: {
        invalid: idErrorText,
        docs: { success: { example: { success: true } }, throws: [new NotFound('threshold')] },
      },
    },
    async (request) => {
      await settings.deleteThreshold(request.account.accountId, request.body.id);
      return { success: true };
    },
  );

  app.get(
    path(VerdictPaths.compare),
    {
      schema: {
        summary: 'A metric record compared with its baseline, key by key',
        querystring: CompareQuery,
      },
      config: {
        invalid: compareErrorText,
        docs: {
          success: {
            example: {
              record: { id: ID, branch: 'feature', commit: '3f2a9c1e0b7d' },
              keys: [
                {
                  key: 'bench/parse',
                  unit: 'ns/op',
                  direction: 'lower',
                  value: 1520,
                  baseline: 1210.5,
                  lower_limit: null,
                  upper_limit: 1391.2,
                  change: 0.2557,
                  test: 't_test',
                  sample_size: 64,
                  verdict: 'regression',
                  base: { branch: 'main', commit: '9d8e7f6a5b4c' },
                },
              ],
              alerts: [ALERT],
            },
          },
          throws: [FOREIGN_PROJECT, new NotFound('record')],
        },
      },
    },
    async (request) => verdicts.compare(request.account.accountId, request.query),
  );

  app.get(
    path(VerdictPaths.getAlerts),
    {
      schema: { summary: "A project's alerts, newest first", querystring: AlertQuery },
      config: {
        invalid: alertQueryErrorText,
        docs: {
          success: { example: { alerts: [ALERT], nextCursor: null } },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request) => verdicts.alerts(request.account.accountId, request.query),
  );

  for (const [route, status, summary] of [
    [VerdictPaths.dismissAlert, 'dismissed', 'Dismiss an alert'],
    [VerdictPaths.reactivateAlert, 'active', 'Make a dismissed alert active again'],
  ] as const) {
    app.post(
      path(route),
      {
        schema: { summary, body: IdRequest },
        config: {
          invalid: idErrorText,
          docs: {
            success: { example: { alert: { ...ALERT, status } } },
            throws: [new NotFound('alert')],
          },
        },
      },
      async (request) => ({
        alert: await verdicts.setAlertStatus(request.account.accountId, request.body.id, status),
      }),
    );
  }

  app.get(
    path(VerdictPaths.getChangePoints),
    {
      schema: {
        summary: "A series' change points on the default branch",
        querystring: ChangePointQuery,
      },
      config: {
        invalid: changePointErrorText,
        docs: {
          success: {
            example: {
              change_points: [
                {
                  record_id: ID,
                  commit: '3f2a9c1e0b7d',
                  at: AT,
                  before_mean: 1210.5,
                  after_mean: 1498.2,
                  change: 0.2377,
                  p_value: 0.0004,
                },
              ],
            },
          },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request) => verdicts.changePoints(request.account.accountId, request.query),
  );

  app.post(
    path(VerdictPaths.reevaluate),
    {
      schema: {
        summary: 'Judge stored values again under the current settings (queued)',
        body: ReevaluateRequest,
      },
      config: {
        invalid: reevaluateErrorText,
        docs: {
          success: {
            status: 202,
            example: {
              reevaluation: {
                id: ID,
                projectId: ID,
                key: 'bench/*',
                branch: 'main',
                from: AT,
                to: null,
                records: 412,
                next_from: null,
              },
            },
          },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request, reply) =>
      reply.code(202).send({
        reevaluation: await reevaluations.request(request.account.accountId, request.body),
      }),
  );
};
