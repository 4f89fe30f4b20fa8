import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { OwnError } from '../../../../contract/error-texts.js';
import { Areas } from '../../../../contract/paths.js';
import {
  type Headline,
  HeadlineQuery,
  type KeyDisplay,
  KeyDisplayQuery,
  KeyDisplayText,
  type MarkEventTypes,
  MarkEventTypesQuery,
  ProjectPagePaths,
  UpdateDurationKeyRequest,
  UpdateKeyDisplayRequest,
  UpdateMarkEventTypesRequest,
  updateDurationKeyErrorText,
  updateKeyDisplayErrorText,
  updateMarkEventTypesErrorText,
} from '../../../../contract/project-page.js';
import { readBackErrorText } from '../../../../contract/stats-queries.js';
import { Forbidden, Invalid, InvalidField, ReadTimeout } from '../../../domain/domain-errors.js';
import { ProjectBusy } from '../../heavy-reads/project-gate.js';
import { within } from '../area.js';
import { AT, ID } from '../examples.js';

const FOREIGN_PROJECT = new Forbidden('project');

const FIGURE = (value: number, previous: number, direction: 'lower' | 'higher' | null) => ({
  value,
  previous,
  direction,
  unit: null,
});

const KEY_DISPLAY: KeyDisplay = {
  projectId: ID,
  pinned: ['duration_ms', 'bundle.bytes'],
  hidden: ['run_id'],
};

const MARK_TYPES: MarkEventTypes = {
  projectId: ID,
  event_types: ['release', 'deploy', 'rollback'],
  event_types_set: true,
};

/**
 * The project page's headline, build-duration key, pinned and hidden keys and marked event
 * types (docs/pages.md): owner keys only.
 */
export const projectPageRoutes: FastifyPluginAsyncZod = async (app) => {
  const { headline, keyDisplay } = app.services;

  app.get(
    within(Areas.stats, ProjectPagePaths.getHeadline),
    {
      schema: {
        summary: "A project's headline figures, each against the period before",
        querystring: HeadlineQuery,
      },
      config: {
        invalid: readBackErrorText,
        docs: {
          success: {
            example: {
              projectId: ID,
              duration_key: 'duration_ms',
              duration_key_set: false,
              from: AT,
              to: AT,
              previous_from: AT,
              previous_to: AT,
              branch: null,
              eventType: null,
              builds: FIGURE(120, 98, null),
              success_rate: FIGURE(0.95, 0.91, 'higher'),
              duration_p50: { ...FIGURE(5400, 5900, 'lower'), unit: 'ms' },
              duration_p95: { ...FIGURE(9100, 9050, 'lower'), unit: 'ms' },
              active_alerts: FIGURE(1, 0, 'lower'),
              flaky_tests: FIGURE(2, 3, 'lower'),
            } satisfies Headline,
          },
          throws: [FOREIGN_PROJECT, new Invalid('read-budget'), new ReadTimeout('read-timeout')],
        },
      },
    },
    async (request, reply): Promise<Headline> => {
      // Under the project's heavy-read cap, like the statistics it reads.
      try {
        return await app.heavyReads.run(request.query.projectId, () =>
          headline.headline(request.account.accountId, request.query),
        );
      } catch (error) {
        if (error instanceof ProjectBusy) {
          reply.header('retry-after', String(error.retryAfterS));
          throw Object.assign(new Error(OwnError.projectBusy), { statusCode: 429 });
        }
        throw error;
      }
    },
  );

  app.post(
    within(Areas.stats, ProjectPagePaths.updateDurationKey),
    {
      schema: {
        summary: "Set the series key of a project's build durations (null: duration_ms)",
        body: UpdateDurationKeyRequest,
      },
      config: {
        invalid: updateDurationKeyErrorText,
        docs: {
          success: {
            example: { projectId: ID, duration_key: 'build.seconds', duration_key_set: true },
          },
          throws: [FOREIGN_PROJECT],
        },
      },
    },
    async (request) =>
      headline.setDurationKey(
        request.account.accountId,
        request.body.projectId,
        request.body.duration_key,
      ),
  );

  app.get(
    within(Areas.stats, ProjectPagePaths.getKeyDisplay),
    {
      schema: {
        summary: "The keys pinned and hidden on a project's page",
        querystring: KeyDisplayQuery,
      },
      config: {
        invalid: readBackErrorText,
        docs: { success: { example: KEY_DISPLAY }, throws: [FOREIGN_PROJECT] },
      },
    },
    async (request) => keyDisplay.get(request.account.accountId, request.query.projectId),
  );

  app.post(
    within(Areas.stats, ProjectPagePaths.updateKeyDisplay),
    {
      schema: {
        summary: "Pin or hide a key on a project's page (null: neither)",
        body: UpdateKeyDisplayRequest,
      },
      config: {
        invalid: updateKeyDisplayErrorText,
        docs: {
          success: { example: KEY_DISPLAY },
          throws: [
            FOREIGN_PROJECT,
            new InvalidField('display', KeyDisplayText.tooManyPinned),
            new InvalidField('display', KeyDisplayText.tooManyHidden),
          ],
        },
      },
    },
    async (request) =>
      keyDisplay.set(
        request.account.accountId,
        request.body.projectId,
        request.body.key,
        request.body.display,
      ),
  );

  app.get(
    within(Areas.stats, ProjectPagePaths.getMarkEventTypes),
    {
      schema: {
        summary: "The event types marked on a project's charts",
        querystring: MarkEventTypesQuery,
      },
      config: {
        invalid: readBackErrorText,
        docs: { success: { example: MARK_TYPES }, throws: [FOREIGN_PROJECT] },
      },
    },
    async (request) => keyDisplay.markTypes(request.account.accountId, request.query.projectId),
  );

  app.post(
    within(Areas.stats, ProjectPagePaths.updateMarkEventTypes),
    {
      schema: {
        summary: "Set the event types marked on a project's charts (null: release and deploy)",
        body: UpdateMarkEventTypesRequest,
      },
      config: {
        invalid: updateMarkEventTypesErrorText,
        docs: { success: { example: MARK_TYPES }, throws: [FOREIGN_PROJECT] },
      },
    },
    async (request) =>
      keyDisplay.setMarkTypes(
        request.account.accountId,
        request.body.projectId,
        request.body.event_types,
      ),
  );
};
