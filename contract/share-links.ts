import * as z from 'zod/mini';
import { requiredText } from './fields.js';
import { Limits } from './limits.js';

/** POST /stats/create-share-link: a read-only link to one of the caller's projects. */
export const CreateShareLinkRequest = z.strictObject({
  projectId: requiredText(Limits.projectIdLength),
});

/** 201 response body: the token (shown once) and the absolute URL of the shared page. */
export interface CreatedShareLink {
  token: string;
  url: string;
}

/** GET /stats/get-share-links: never a token, only its first characters. */
export interface ShareLinkList {
  links: { id: string; prefix: string; created_at: string }[];
}

/** POST /stats/revoke-share-link: the token itself (what the person holding the link has). */
export const RevokeShareLinkRequest = z.strictObject({ token: requiredText(128) });

/** The path of a shared project page. */
export const sharePath = (token: string): string => `/share/${token}`;
