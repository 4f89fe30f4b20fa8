import type { Digest } from '../../../contract/channels.js';

const DAY_MS = 86_400_000;

/** A digest's period: a day, or a week (Monday to Monday). */
export const periodMs = (digest: Digest): number => (digest.every === 'day' ? DAY_MS : 7 * DAY_MS);

/**
 * The first time strictly after `after` (epoch ms) at which the digest is due: each day at
 * `at` (UTC), or each Monday at `at` for a weekly one.
 */
export function nextDigestAt(digest: Digest, after: number): number {
  const [hours, minutes] = digest.at.split(':').map(Number) as [number, number];
  const day = new Date(after);
  let at = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hours, minutes);
  while (at <= after || (digest.every === 'week' && new Date(at).getUTCDay() !== 1)) {
    at += DAY_MS;
  }
  return at;
}
