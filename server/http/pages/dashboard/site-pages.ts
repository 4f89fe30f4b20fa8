import type { FastifyInstance } from 'fastify';
import { DEFAULT_THEME, THEMES } from '../../../domain/themes.js';
import { layoutOf, redirectTo, sendPage, textOf } from './dashboard-pages.js';
import type { FieldErrors } from './form-errors.js';
import {
  applyAction,
  type SiteFormValues,
  siteChange,
  valuesOfForm,
  valuesOfSite,
} from './site-form.js';
import type { Chrome } from './views/dashboard-layout.js';
import { SiteView } from './views/site-view.js';

/** /dashboard/site: edit the page (E4's service) and flip its visibility (E3's). */
export function sitePages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { site, displayName } = app.services;

    async function editor(
      request: Parameters<typeof layoutOf>[0],
      reply: Parameters<typeof layoutOf>[1],
      values: SiteFormValues | undefined,
      errors: FieldErrors = {},
    ) {
      const { accountId } = request.session;
      const [stored, name] = await Promise.all([site.get(accountId), displayName.get(accountId)]);
      return sendPage(
        reply,
        SiteView({
          ...(await layoutOf(request, reply, chrome)),
          values: values ?? valuesOfSite(stored),
          errors,
          themes: THEMES,
          defaultThemeId: DEFAULT_THEME.id,
          visible: stored.visibility,
          displayName: name.display_name,
        }),
        Object.keys(errors).length > 0 ? 400 : 200,
      );
    }

    app.get('/site', async (request, reply) => editor(request, reply, undefined));

    app.post('/site', async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, unknown>;
      const values = valuesOfForm(form);
      const checked = siteChange(values);
      if (!checked.ok) return editor(request, reply, values, checked.errors);
      // Valid as submitted: a move or removal then applies to the rows, and all of it is saved.
      const rows = applyAction(values.blocks, textOf(form.action));
      const change = rows === values.blocks ? checked.change : siteChangeWith(values, rows);
      await site.update(request.session.accountId, change);
      return redirectTo(reply, '/dashboard/site', 'site-saved');
    });

    app.post('/site/visibility', async (request, reply) => {
      const visible = await site.toggleVisibility(request.session.accountId);
      const back = textOf((request.body as { back?: unknown } | undefined)?.back);
      return redirectTo(
        reply,
        back === 'site' ? '/dashboard/site' : '/dashboard',
        visible ? 'site-shown' : 'site-hidden',
      );
    });
  };
}

/** The change with the rows rearranged (they were valid, so it is too). */
function siteChangeWith(values: SiteFormValues, rows: SiteFormValues['blocks']) {
  const checked = siteChange({ ...values, blocks: rows });
  if (!checked.ok) throw new Error('rearranged blocks failed a check they passed');
  return checked.change;
}
