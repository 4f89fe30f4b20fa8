import * as z from 'zod/mini';
import { OwnError, SpecError } from './error-texts.js';
import { concerns, pickErrorText } from './fields.js';
import { isJsonObject } from './json.js';
import { fieldHoldsNul, nulText, plainString } from './text-rule.js';

/**
 * E5 POST /account/update-display-name request body. The name's own rules (normalisation, length,
 * reserved names) are the server's domain rules, applied after this.
 */
export const UpdateDisplayNameRequest = z.strictObject({ display_name: plainString() });
export type UpdateDisplayNameRequest = z.infer<typeof UpdateDisplayNameRequest>;

/** E5's 400 texts: a missing or non-string name first, then anything else (unknown fields). */
export const updateDisplayNameErrorText = pickErrorText(
  [nulText('display_name'), OwnError.displayNameMissing, SpecError.invalidBody],
  (paths, body) => {
    if (fieldHoldsNul(body, 'display_name')) return nulText('display_name');
    return !isJsonObject(body) || concerns(paths, 'display_name')
      ? OwnError.displayNameMissing
      : SpecError.invalidBody;
  },
);

/** E5 200 response body. */
export interface UpdateDisplayNameResponse {
  success: true;
  display_name: string;
  alias: string;
}

/** GET /account/get-display-name 200 response body; nulls before a name is set. */
export interface DisplayNameResponse {
  display_name: string | null;
  alias: string | null;
}
