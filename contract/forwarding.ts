import * as z from 'zod/mini';
import { SpecError } from './error-texts.js';
import { pickErrorText } from './fields.js';
import { Limits } from './limits.js';
import { noNul } from './text-rule.js';

/** A forwarding target address, after trimming. */
export const ForwardingEmail = z.pipe(
  z.string().check(z.trim(), noNul),
  z.email().check(z.maxLength(Limits.emailLength)),
);

/**
 * E2 POST /email-forwarding/email-forwarding-toggle request body. Enabling needs a valid address;
 * disabling ignores one (the stored address is kept, so E1 can still show it).
 */
export const ToggleForwardingRequest = z.discriminatedUnion('enabled', [
  z.strictObject({ enabled: z.literal(true), email: ForwardingEmail }),
  z.strictObject({ enabled: z.literal(false), email: z.optional(z.unknown()) }),
]);
export type ToggleForwardingRequest = z.infer<typeof ToggleForwardingRequest>;

/** E2's 400 texts: a bad address when enabling has its own; any other problem is generic. */
export const toggleForwardingErrorText = pickErrorText(
  [SpecError.emailRequired, SpecError.invalidBody],
  (paths) =>
    paths.every((path) => path[0] === 'email') ? SpecError.emailRequired : SpecError.invalidBody,
);

/** E1 200 response body. */
export interface ForwardingStatus {
  enabled: boolean;
  email: string;
}

/** E2 200 response body. */
export interface ToggleForwardingResponse {
  success: true;
}
