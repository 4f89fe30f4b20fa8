/** The outbox's retry schedule: pure arithmetic, kept apart so it can be tested without clocks. */

export interface RetryPolicy {
  /** First delay; each later attempt doubles it. */
  baseMs: number;
  /** No single wait is longer than this. */
  capMs: number;
  maxAttempts: number;
}

export const HOUR_MS = 60 * 60 * 1000;

/**
 * Delay before attempt `attempt + 1`, after `attempt` failures: what the service asked for when it
 * said (429), else exponential backoff with jitter (50-100% of base * 2^(attempt-1)), capped.
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, 0), policy.capMs);
  const exponential = Math.min(policy.baseMs * 2 ** Math.max(attempt - 1, 0), policy.capMs);
  return Math.round(exponential * (0.5 + random() / 2));
}
