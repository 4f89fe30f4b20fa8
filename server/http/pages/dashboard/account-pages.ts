import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OwnError, SpecError } from '../../../../contract/error-texts.js';
import { ToggleForwardingRequest } from '../../../../contract/forwarding.js';
import { Conflict, Invalid, NotFound, Unavailable } from '../../../domain/domain-errors.js';
import { layoutOf, redirectTo, sendPage, textOf } from './dashboard-pages.js';
import { type FieldErrors, fieldErrors } from './form-errors.js';
import { AccountView } from './views/account-view.js';
import type { Chrome } from './views/dashboard-layout.js';

/** What each refusal of E5 and E2 says next to its field. */
const NAME_ERRORS: Record<string, string> = {
  'display-name-length': OwnError.displayNameLength,
  'display-name-reserved': OwnError.displayNameReserved,
  'display-name-taken': 'This display name is taken by another account.',
};

/** /dashboard/account: the display name (E5's service) and forwarding (E2's). */
export function accountPages(chrome: Chrome) {
  return async (app: FastifyInstance) => {
    const { displayName, forwarding } = app.services;
    const { mailDomain } = app.config;

    async function page(
      request: FastifyRequest,
      reply: FastifyReply,
      errors: FieldErrors = {},
      submitted: { displayName?: string; email?: string; enabled?: boolean } = {},
    ) {
      const { accountId } = request.session;
      const [name, status] = await Promise.all([
        displayName.get(accountId),
        forwarding.status(accountId),
      ]);
      return sendPage(
        reply,
        AccountView({
          ...(await layoutOf(request, reply, chrome)),
          displayName: submitted.displayName ?? name.display_name ?? '',
          alias: name.alias,
          mailDomain,
          forwarding: {
            enabled: submitted.enabled ?? status.enabled,
            email: submitted.email ?? status.email,
          },
          errors,
        }),
        Object.keys(errors).length > 0 ? 400 : 200,
      );
    }

    app.get('/account', async (request, reply) => page(request, reply));

    app.post('/account/name', async (request, reply) => {
      const requested = textOf(
        (request.body as { display_name?: unknown } | undefined)?.display_name,
      );
      try {
        await displayName.update(request.session.accountId, requested);
      } catch (error) {
        if (!(error instanceof Invalid || error instanceof Conflict)) throw error;
        const message = NAME_ERRORS[error.reason] ?? SpecError.invalidBody;
        return page(request, reply, { display_name: message }, { displayName: requested });
      }
      return redirectTo(reply, '/dashboard/account', 'name-saved');
    });

    app.post('/account/forwarding', async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, unknown>;
      const enabled = form.enabled === 'true';
      const email = textOf(form.email);
      const submitted = { enabled, email };
      const parsed = ToggleForwardingRequest.safeParse({ enabled, email });
      if (!parsed.success) {
        return page(
          request,
          reply,
          fieldErrors(parsed.error.issues, () => 'email', {
            email: 'Enter a valid address to forward to.',
          }),
          submitted,
        );
      }
      try {
        await forwarding.toggle(request.session.accountId, parsed.data);
      } catch (error) {
        if (error instanceof NotFound) {
          return page(
            request,
            reply,
            { forwarding: 'Choose a display name first: forwarding needs an alias.' },
            submitted,
          );
        }
        if (error instanceof Unavailable) {
          return page(
            request,
            reply,
            {
              forwarding:
                'The forwarding service could not be reached. Nothing was changed; try again in a moment.',
            },
            submitted,
          );
        }
        throw error;
      }
      return redirectTo(reply, '/dashboard/account', enabled ? 'forwarding-on' : 'forwarding-off');
    });
  };
}
