import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Areas, Paths } from '../../../../contract/paths.js';
import { ProjectQuery, readBackErrorText } from '../../../../contract/stats-queries.js';
import {
  type QuarantineChange,
  type QuarantineList,
  QuarantineTestRequest,
  quarantineErrorText,
  SetTestSettingsRequest,
  type TestSettings,
  UnquarantineTestRequest,
} from '../../../../contract/tests/quarantine.js';
import { Forbidden, NotFound } from '../../../domain/domain-errors.js';
import { within } from '../area.js';
import { AT, ID } from '../examples.js';

const FOREIGN_PROJECT = new Forbidden('project');
const TEST_ID = 'q0vB3kqYt1xXJ2Ck';

/**
 * Quarantine (docs/tests.md): owner keys mark and unmark tests; the list is readable by ingest
 * keys too, since the reporter that sends a run's tests reads it (`--quarantine`).
 */
export const quarantineRoutes: FastifyPluginAsyncZod = async (app) => {
  const { quarantine } = app.services;

  app.post(
    within(Areas.stats, Paths.quarantineTest),
    {
      schema: {
        summary:
          'Quarantine a test: its failures no longer fail a build reported with --quarantine',
        body: QuarantineTestRequest,
      },
      config: {
        invalid: quarantineErrorText,
        docs: {
          success: { example: { test: TEST_ID, quarantined: true, changed: true } },
          throws: [FOREIGN_PROJECT, new NotFound('test')],
        },
      },
    },
    async (request): Promise<QuarantineChange> =>
      quarantine.quarantine(request.account, request.body),
  );

  app.post(
    within(Areas.stats, Paths.unquarantineTest),
    {
      schema: { summary: 'Take a test out of quarantine', body: UnquarantineTestRequest },
      config: {
        invalid: quarantineErrorText,
        docs: {
          success: { example: { test: TEST_ID, quarantined: false, changed: true } },
          throws: [FOREIGN_PROJECT, new NotFound('test')],
        },
      },
    },
    async (request): Promise<QuarantineChange> =>
      quarantine.unquarantine(request.account, request.body),
  );

  app.get(
    within(Areas.stats, Paths.getQuarantine),
    {
      schema: { summary: "A project's quarantined tests", querystring: ProjectQuery },
      config: {
        invalid: readBackErrorText,
        ingestKeys: true,
        docs: {
          success: {
            example: {
              projectId: ID,
              tests: [
                {
                  id: TEST_ID,
                  suite: 'cart',
                  classname: 'com.example.CartTest',
                  name: 'appliesDiscount',
                  file: null,
                  reason: 'flaky since the new payment mock, #412',
                  created_at: AT,
                  automatic: false,
                },
              ],
            },
          },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request): Promise<QuarantineList> =>
      quarantine.list(request.account, request.query.projectId),
  );

  app.get(
    within(Areas.stats, Paths.getTestSettings),
    {
      schema: {
        summary: "A project's tests settings: the automatic quarantine threshold",
        querystring: ProjectQuery,
      },
      config: {
        invalid: readBackErrorText,
        docs: {
          success: { example: { projectId: ID, autoQuarantineScore: null } },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request): Promise<TestSettings> =>
      quarantine.settings(request.account, request.query.projectId),
  );

  app.post(
    within(Areas.stats, Paths.setTestSettings),
    {
      schema: {
        summary:
          'Quarantine automatically the tests whose flaky score reaches a threshold (null: off)',
        body: SetTestSettingsRequest,
      },
      config: {
        invalid: quarantineErrorText,
        docs: {
          success: { example: { projectId: ID, autoQuarantineScore: 0.5 } },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request): Promise<TestSettings> => quarantine.setSettings(request.account, request.body),
  );
};
