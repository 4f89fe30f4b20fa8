/** What a client of this API may retry, and how long the server asked it to wait. */

/** 429 and 5xx are worth another attempt (as are network errors and timeouts); others are final. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** A number of seconds (fractions allowed), as milliseconds; undefined when it is not one. */
export function secondsToMs(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= 0
    ? Math.ceil(number * 1000)
    : undefined;
}

/**
 * The wait a `Retry-After` header asks for (RFC 9110: delay-seconds or an HTTP date), in
 * milliseconds; undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(
  header: string | string[] | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === null) return undefined;
  const delay = secondsToMs(value);
  if (delay !== undefined) return delay;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(date - now, 0);
}
