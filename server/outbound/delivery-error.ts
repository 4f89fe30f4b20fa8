/**
 * Why an outbound call failed, and whether trying again can help. Messages are safe to log and
 * to show in `notification.lastError`: secrets are redacted before a DeliveryError is built.
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** Network errors, timeouts, 429 and 5xx are worth retrying; other answers are final. */
    readonly retryable: boolean,
    /** What the service asked us to wait (429 Retry-After), if anything. */
    readonly retryAfterMs?: number,
    /** The HTTP status, when the service answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** Replaces every occurrence of each secret with a marker. */
export function redact(text: string, secrets: readonly string[]): string {
  let safe = text;
  for (const secret of secrets) {
    if (secret.length > 0) safe = safe.split(secret).join('[redacted]');
  }
  return safe;
}
