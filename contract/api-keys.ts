import * as z from 'zod/mini';
import { requiredText } from './fields.js';
import { Limits } from './limits.js';
import { noNul } from './text-rule.js';

/** `full`: the whole API, as the spec's keys; `ingest`: E6, E7 and E8 only. */
export const KEY_SCOPES = ['full', 'ingest'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** A key's label: trimmed, at most 100 characters; empty is none. */
export const KeyLabel = z.pipe(
  z.string().check(z.trim(), z.maxLength(Limits.labelLength), noNul),
  z.transform((label) => label || null),
);

/**
 * POST /account/create-api-key (and the admin API's key creation). `projectIds` limits an ingest
 * key to those projects (each must be the caller's); it makes no sense for a full key.
 */
export const CreateApiKeyRequest = z
  .strictObject({
    label: z.optional(z.nullable(KeyLabel)),
    scope: z._default(z.enum(KEY_SCOPES), 'full'),
    projectIds: z.optional(
      z
        .array(requiredText(Limits.projectIdLength))
        .check(z.minLength(1), z.maxLength(Limits.projectsPerKey)),
    ),
  })
  .check(
    z.refine((key) => key.projectIds === undefined || key.scope === 'ingest', {
      path: ['projectIds'],
      message: 'projectIds only with scope ingest',
    }),
  );
export type CreateApiKeyRequest = z.infer<typeof CreateApiKeyRequest>;

/** 201 response body: the key itself, shown this once. */
export interface CreateApiKeyResponse {
  keyId: string;
  apiKey: string;
  label: string | null;
  scope: KeyScope;
  projectIds: string[] | null;
}

/** A key as its account sees it listed: never the key or its hash. Times are ISO 8601. */
export interface ApiKeyInfo {
  id: string;
  label: string | null;
  prefix: string;
  scope: KeyScope;
  projectIds: string[] | null;
  created_at: string;
  /** At most a minute stale. */
  last_used_at: string | null;
}

/** GET /account/get-api-keys. */
export interface ApiKeyList {
  keys: ApiKeyInfo[];
}

/** POST /account/revoke-api-key. */
export const RevokeApiKeyRequest = z.strictObject({ keyId: requiredText(Limits.keyIdLength) });
export type RevokeApiKeyRequest = z.infer<typeof RevokeApiKeyRequest>;
