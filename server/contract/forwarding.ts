import * as z from 'zod/mini';
import { Limits } from './limits.js';

/** E2 body shape; the address itself is judged separately so the spec's 400 text can be used. */
export const ToggleForwardingRequest = z.strictObject({
  enabled: z.boolean(),
  email: z.optional(z.unknown()),
});
export type ToggleForwardingRequest = z.infer<typeof ToggleForwardingRequest>;

/** A forwarding target address, after trimming. */
export const ForwardingEmail = z.email().check(z.maxLength(Limits.emailLength));

/** E1 200 response body. */
export interface ForwardingStatus {
  enabled: boolean;
  email: string;
}
