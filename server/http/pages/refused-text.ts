import type { onRequestHookHandler } from 'fastify';
import { nulPath } from '../../../contract/text-rule.js';

/**
 * The contract's text rule (contract/text-rule.ts) where no schema reads the text: the pages'
 * addresses (path parameters and query) and dashboard forms. A NUL is refused with a 400 page
 * naming the parameter or field, before any route looks the text up or stores it.
 */
export class RefusedText extends Error {
  readonly statusCode = 400;
  constructor(readonly field: string) {
    super(`${field} holds a NUL character`);
  }
}

/** `blocks[2][content]`: a form field's name as the form wrote it. */
const formName = (path: readonly (string | number)[]): string =>
  path.map((part, index) => (index === 0 ? String(part) : `[${part}]`)).join('');

/** The name of the first parameter of `values` (params or query) holding a NUL, if any. */
function nulParameter(values: unknown): string | undefined {
  if (typeof values !== 'object' || values === null) return undefined;
  const path = nulPath(values);
  return path === undefined ? undefined : formName(path.slice(0, 1));
}

/** onRequest: a path parameter or query parameter holding a NUL is refused. */
export const refuseNulInAddress: onRequestHookHandler = (request, _reply, done) => {
  // Only a `%00` in the address can decode to a NUL: one search spares the rest.
  if (!request.url.includes('%00')) {
    done();
    return;
  }
  const field = nulParameter(request.params) ?? nulParameter(request.query);
  done(field === undefined ? undefined : new RefusedText(field));
};

/** A parsed form, refused when a field name or value holds a NUL. */
export function refuseNulInForm<T>(form: T): T {
  const path = nulPath(form);
  if (path !== undefined) throw new RefusedText(formName(path));
  return form;
}
