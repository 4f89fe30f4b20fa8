import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, InvalidField, NotFound } from '../../../domain/domain-errors.js';
import { layoutOf, type Notice, redirectTo, sendPage, textOf } from './dashboard-pages.js';
import {
  createThresholdOf,
  type Form,
  REEVALUATE_FIELDS,
  reevaluateOf,
  thresholdTextOf,
  updateProjectOf,
  updateSeriesOf,
  updateThresholdOf,
} from './verdict-form.js';
import type { Chrome } from './views/dashboard-layout.js';
import { type Refusal, VerdictsView } from './views/verdicts-view.js';

type ProjectRequest = FastifyRequest<{ Params: { id: string } }>;

/** Keys and alerts shown: the first page of each (the API pages through the rest). */
const SHOWN = 200;

const noSuchProject = () => Object.assign(new Error('no such project'), { statusCode: 404 });

/**
 * /dashboard/projects/<id>/series: "Series and thresholds", the owner's verdict settings (issue
 * 23) through the same services as the API: each key's unit and direction, thresholds, active
 * and dismissed alerts, and re-evaluation. A refused form is the page again with 400, the form's
 * fields as sent and the reason beside each; nothing is changed. Another account's project is
 * the 404 page.
 */
export function verdictPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { stats, verdicts, verdictSettings, reevaluations, projects } = app.services;

    async function page(request: ProjectRequest, reply: FastifyReply, refusal?: Refusal) {
      const { accountId } = request.session;
      const { id } = request.params;
      const [project] = (await projects.list({ accountId, projectIds: null })).filter(
        (p) => p.id === id,
      );
      if (!project) throw noSuchProject();
      const [keys, thresholds, settings, active, dismissed] = await Promise.all([
        stats.keys(accountId, id, { limit: SHOWN }),
        verdictSettings.thresholds(accountId, id),
        verdictSettings.projectSettings(accountId, id),
        verdicts.alerts(accountId, { projectId: id, status: 'active', limit: SHOWN }),
        verdicts.alerts(accountId, { projectId: id, status: 'dismissed', limit: SHOWN }),
      ]);
      return sendPage(
        reply,
        VerdictsView({
          ...(await layoutOf(request, reply, chrome)),
          project,
          keys: keys.keys,
          moreKeys: keys.nextCursor !== null,
          thresholds,
          settings,
          active: active.alerts,
          dismissed: dismissed.alerts,
          refusal,
        }),
        refusal ? 400 : 200,
      );
    }

    const here = (request: ProjectRequest) =>
      `/dashboard/projects/${encodeURIComponent(request.params.id)}/series`;

    /**
     * Runs a form's change: done, back to the page with a notice; refused (the service's rule,
     * or a threshold or alert gone), the page again with the reason.
     */
    async function change(
      request: ProjectRequest,
      reply: FastifyReply,
      form: Omit<Refusal, 'errors'>,
      run: () => Promise<unknown>,
      done: Notice,
    ) {
      try {
        await run();
      } catch (error) {
        if (error instanceof InvalidField) {
          return page(request, reply, { ...form, errors: { [error.field]: error.text } });
        }
        if (error instanceof NotFound && error.reason !== 'project') {
          return page(request, reply, {
            ...form,
            errors: { form: `This ${error.reason} does not exist any more.` },
          });
        }
        if (error instanceof DomainError && error.kind === 'forbidden') throw noSuchProject();
        throw error;
      }
      return redirectTo(reply, here(request), done);
    }

    type Handler = (request: ProjectRequest, reply: FastifyReply, form: Form) => unknown;
    /** A form of this page, posted to its own path under the page's. */
    const routes = (scope: FastifyInstance, path: string, handler: Handler) =>
      scope.post(`/projects/:id/series${path}`, async (request, reply) =>
        handler(request as ProjectRequest, reply, (request.body ?? {}) as Form),
      );

    app.get('/projects/:id/series', async (request, reply) =>
      page(request as ProjectRequest, reply).catch((error) => {
        if (error instanceof DomainError && error.kind === 'forbidden') throw noSuchProject();
        throw error;
      }),
    );

    routes(app, '', async (request, reply, form) => {
      const { accountId } = request.session;
      const scope = { form: 'series' as const, key: textOf(form.key), text: series(form) };
      const parsed = updateSeriesOf(request.params.id, form);
      if (!parsed.ok) return page(request, reply, { ...scope, errors: parsed.errors });
      return change(
        request,
        reply,
        scope,
        () => verdictSettings.updateSeries(accountId, parsed.value),
        'series-saved',
      );
    });

    routes(app, '/thresholds', async (request, reply, form) => {
      const text = thresholdTextOf(form);
      const scope = { form: 'create-threshold' as const, text };
      const parsed = createThresholdOf(request.params.id, text);
      if (!parsed.ok) return page(request, reply, { ...scope, errors: parsed.errors });
      return change(
        request,
        reply,
        scope,
        () => verdictSettings.createThreshold(request.session.accountId, parsed.value),
        'threshold-created',
      );
    });

    routes(app, '/thresholds/update', async (request, reply, form) => {
      const id = textOf(form.id);
      const text = thresholdTextOf(form);
      const scope = { form: 'threshold' as const, key: id, text };
      const parsed = updateThresholdOf(id, text);
      if (!parsed.ok) return page(request, reply, { ...scope, errors: parsed.errors });
      return change(
        request,
        reply,
        scope,
        () =>
          ownThreshold(request, id, () =>
            verdictSettings.updateThreshold(request.session.accountId, parsed.value),
          ),
        'threshold-saved',
      );
    });

    routes(app, '/thresholds/delete', async (request, reply, form) => {
      const id = textOf(form.id);
      return change(
        request,
        reply,
        { form: 'threshold', key: id },
        () =>
          ownThreshold(request, id, () =>
            verdictSettings.deleteThreshold(request.session.accountId, id),
          ),
        'threshold-deleted',
      );
    });

    for (const [path, status, done] of [
      ['/alerts/dismiss', 'dismissed', 'alert-dismissed'],
      ['/alerts/reactivate', 'active', 'alert-reactivated'],
    ] as const) {
      routes(app, path, async (request, reply, form) => {
        const id = textOf(form.id);
        return change(
          request,
          reply,
          { form: 'alert', key: id },
          () => verdicts.setAlertStatus(request.session.accountId, id, status, request.params.id),
          done,
        );
      });
    }

    routes(app, '/settings', async (request, reply, form) => {
      const scope = {
        form: 'settings' as const,
        text: { default_branch: textOf(form.default_branch) },
      };
      const parsed = updateProjectOf(request.params.id, form);
      if (!parsed.ok) return page(request, reply, { ...scope, errors: parsed.errors });
      return change(
        request,
        reply,
        scope,
        () => verdictSettings.updateProject(request.session.accountId, parsed.value),
        'verdict-settings-saved',
      );
    });

    routes(app, '/reevaluate', async (request, reply, form) => {
      const scope = { form: 'reevaluate' as const, text: reevaluateText(form) };
      const parsed = reevaluateOf(request.params.id, form);
      if (!parsed.ok) return page(request, reply, { ...scope, errors: parsed.errors });
      return change(
        request,
        reply,
        scope,
        () => reevaluations.request(request.session.accountId, parsed.value),
        'reevaluation-queued',
      );
    });

    /**
     * A threshold of this page's project only: one of another project of the same account is
     * "gone" here (the page would not show it).
     */
    async function ownThreshold(request: ProjectRequest, id: string, run: () => Promise<unknown>) {
      const listed = await verdictSettings.thresholds(request.session.accountId, request.params.id);
      if (!listed.some((t) => t.id === id)) throw new NotFound('threshold');
      return run();
    }
  };
}

const series = (form: Form) => ({
  unit: textOf(form.unit),
  direction: textOf(form.direction),
});

const reevaluateText = (form: Form) =>
  Object.fromEntries(Object.values(REEVALUATE_FIELDS).map((name) => [name, textOf(form[name])]));
