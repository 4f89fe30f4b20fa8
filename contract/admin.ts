import * as z from 'zod/mini';
import { SpecError } from './error-texts.js';
import { concerns, pickErrorText } from './fields.js';
import { isJsonObject } from './json.js';
import { Limits } from './limits.js';
import { ProjectName } from './projects.js';
import { fieldHoldsNul, noNul, nulText, plainString } from './text-rule.js';

/** Trimmed; an empty text counts as absent. */
const optionalLabel = z.pipe(
  z.string().check(z.trim(), z.maxLength(Limits.labelLength), noNul),
  z.transform((label) => label || undefined),
);

/** POST /admin/accounts: fields other than `label` are ignored. */
export const CreateAccountRequest = z.nullish(
  z.looseObject({ label: z.optional(z.nullable(optionalLabel)) }),
);
export type CreateAccountRequest = z.infer<typeof CreateAccountRequest>;

export const AdminError = {
  labelInvalid: `label must be a string of at most ${Limits.labelLength} characters.`,
  nameRequired: 'name is required.',
  nameInvalid: `name must be a string of at most ${Limits.projectNameLength} characters.`,
  accountNotFound: 'Account not found.',
  keyNotFound: 'Key not found.',
} as const;

export const createAccountErrorText = pickErrorText(
  [nulText('label'), AdminError.labelInvalid, SpecError.invalidBody],
  (_paths, body) => {
    if (fieldHoldsNul(body, 'label')) return nulText('label');
    return isJsonObject(body) ? AdminError.labelInvalid : SpecError.invalidBody;
  },
);

/** POST /admin/accounts/:accountId/projects: fields other than `name` are ignored. */
export const AdminCreateProjectRequest = z.looseObject({ name: ProjectName });
export type AdminCreateProjectRequest = z.infer<typeof AdminCreateProjectRequest>;

/** The 400 texts of a project name (admin API, CLI and POST /stats/create-project). */
export const createProjectErrorText = pickErrorText(
  [nulText('name'), AdminError.nameRequired, AdminError.nameInvalid],
  (paths, body) => {
    const name = (body as { name?: unknown } | null)?.name;
    if (concerns(paths, 'name') && fieldHoldsNul(body, 'name')) return nulText('name');
    if (!concerns(paths, 'name') || name === undefined || name === null) {
      return AdminError.nameRequired;
    }
    return typeof name === 'string' && name.trim() === ''
      ? AdminError.nameRequired
      : AdminError.nameInvalid;
  },
);

export const AccountParams = z.object({ accountId: plainString() });
export const KeyParams = z.object({ keyId: plainString() });

/** POST /admin/accounts 201 response body; `keyId` is what rotating the first key needs. */
export interface CreatedAccount {
  accountId: string;
  apiKey: string;
  keyId: string;
}

/** A new key, shown this once. */
export interface IssuedKey {
  keyId: string;
  apiKey: string;
}
