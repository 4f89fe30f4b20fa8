/** Pure retry arithmetic of the outbox, kept apart so it can be tested without clocks. */

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

type HeaderValue = string | string[] | undefined;

function first(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function seconds(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= 0
    ? Math.ceil(number * 1000)
    : undefined;
}

/**
 * How long a 429 asks us to wait, from (in order) `Retry-After` in seconds or as an HTTP date,
 * Discord's `retry_after` body field (seconds, fractional), or Brevo's `x-sib-ratelimit-reset`.
 */
export function parseRetryAfter(
  headers: Record<string, HeaderValue>,
  body: unknown,
  now: number = Date.now(),
): number | undefined {
  const header = first(headers['retry-after']);
  if (header !== undefined) {
    const delay = seconds(header);
    if (delay !== undefined) return delay;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(date - now, 0);
  }
  if (typeof body === 'object' && body !== null && 'retry_after' in body) {
    const delay = seconds((body as { retry_after: unknown }).retry_after);
    if (delay !== undefined) return delay;
  }
  return seconds(first(headers['x-sib-ratelimit-reset']));
}
