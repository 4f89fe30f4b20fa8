import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CreateApiKeyRequest, type CreateApiKeyResponse } from '../../../../contract/api-keys.js';
import { Forbidden, NotFound } from '../../../domain/domain-errors.js';
import { COPY_PAGE_POLICY, securityHeaders } from '../security-headers.js';
import { layoutOf, redirectTo, sendPage, textOf } from './dashboard-pages.js';
import { type FieldErrors, fieldErrors } from './form-errors.js';
import type { Chrome, PageAssets } from './views/dashboard-layout.js';
import { KeysView } from './views/keys-view.js';

/**
 * /dashboard/keys: list, create and revoke (the key API's service). A new key is shown on the
 * answer to its creation, not after a redirect: to survive one it would have to be stored.
 */
export function keyPages(chrome: Chrome, assets: PageAssets) {
  return async (app: FastifyInstance) => {
    const { apiKeys, projects } = app.services;
    // The new key's copy button is the only script: these pages allow our own scripts.
    app.addHook('onRequest', securityHeaders(COPY_PAGE_POLICY));

    async function page(
      request: FastifyRequest,
      reply: FastifyReply,
      extra: {
        created?: CreateApiKeyResponse;
        errors?: FieldErrors;
        submitted?: { label: string; scope: string; projectIds: string[] };
      } = {},
    ) {
      const { accountId } = request.session;
      const [keys, list] = await Promise.all([
        apiKeys.list(accountId),
        projects.list({ accountId, projectIds: null }),
      ]);
      const errors = extra.errors ?? {};
      return sendPage(
        reply,
        KeysView({
          ...(await layoutOf(request, reply, chrome)),
          assets,
          keys,
          projects: list,
          created: extra.created,
          errors,
          submitted: extra.submitted,
        }),
        Object.keys(errors).length > 0 ? 400 : extra.created ? 201 : 200,
      );
    }

    app.get('/keys', async (request, reply) => page(request, reply));

    app.post('/keys', async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, unknown>;
      const chosen = Array.isArray(form.projectIds) ? form.projectIds.map(textOf) : [];
      const submitted = {
        label: textOf(form.label),
        scope: textOf(form.scope),
        projectIds: chosen,
      };
      const scope = submitted.scope === 'full' ? 'full' : 'ingest';
      const parsed = CreateApiKeyRequest.safeParse({
        label: submitted.label,
        scope,
        ...(scope === 'ingest' && chosen.length > 0 ? { projectIds: chosen } : {}),
      });
      if (!parsed.success)
        return page(request, reply, { errors: fieldErrors(parsed.error.issues), submitted });
      try {
        const created = await apiKeys.createKey(request.session.accountId, {
          label: parsed.data.label ?? null,
          scope: parsed.data.scope,
          projectIds: parsed.data.projectIds ?? null,
        });
        return page(request, reply, { created });
      } catch (error) {
        if (!(error instanceof Forbidden)) throw error;
        return page(request, reply, {
          errors: { projectIds: 'Choose projects of this account.' },
          submitted,
        });
      }
    });

    app.post('/keys/revoke', async (request, reply) => {
      const keyId = textOf((request.body as { keyId?: unknown } | undefined)?.keyId);
      try {
        await apiKeys.revokeOwn(request.session.accountId, keyId);
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
        return page(request, reply, { errors: { form: 'This key does not exist any more.' } });
      }
      return redirectTo(reply, '/dashboard/keys', 'key-revoked');
    });
  };
}
