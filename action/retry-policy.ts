/** When a failed request to the stats server is worth trying again, and how long to wait. */

/** The step waits at most this long for a Retry-After; a longer ask fails the request. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** 429 and 5xx are worth another attempt (as are network errors and timeouts); others are final. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Backoff before retry `n` (1-based): 1 s, 2 s, 4 s... each stretched by a random 1-2x. */
export const BACKOFF = {
  minTimeout: 1_000,
  factor: 2,
  maxTimeout: 30_000,
  randomize: true,
} as const;
