import { DeliveryError } from '../../outbound/delivery-error.js';
import type { OutboundResponse } from '../../outbound/outbound-http.js';

/**
 * Slack's Web API answers HTTP 200 to most failures, with `ok: false` and an `error` code: these
 * are the codes worth trying again (Slack's own trouble); every other is final (invalid_auth,
 * token_revoked, not_in_channel, channel_not_found, invalid_blocks…). Rate limits are HTTP 429
 * with Retry-After, which the outbound client already treats as such.
 */
const RETRYABLE = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'ratelimited',
]);

/** The message an edit named is gone (deleted in Slack, or too old to edit): post it anew. */
export const GONE = new Set(['message_not_found', 'cant_update_message', 'edit_window_closed']);

export class SlackApiError extends DeliveryError {
  constructor(readonly code: string) {
    super(`Slack answered ${code}`, RETRYABLE.has(code));
  }
}

/** A Web API answer's message timestamp (its id in the channel), or a SlackApiError. */
export function slackAnswer(answer: OutboundResponse): { ts: string | null } {
  const body = answer.body as { ok?: unknown; error?: unknown; ts?: unknown } | null;
  if (body?.ok !== true) {
    throw new SlackApiError(
      typeof body?.error === 'string' ? body.error.slice(0, 100) : 'no ok in its answer',
    );
  }
  const ts = typeof body.ts === 'string' && /^\d{1,12}\.\d{1,9}$/.test(body.ts) ? body.ts : null;
  return { ts };
}
