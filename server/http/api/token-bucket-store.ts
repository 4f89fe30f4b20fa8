/**
 * A token bucket per key (neither @fastify/rate-limit, which counts in fixed windows, nor
 * rate-limiter-flexible has one). Written as GCRA: per key, one number, the time at which the
 * bucket would be full again. A key may send `max` requests at once, then one every
 * `timeWindow / max` ms: a flooding key gets its allowance spread evenly over time instead of a
 * whole window's worth at the window's start. Synchronous: it is asked on every API request.
 *
 * What the rate limit makes of the answer: `current` over `max` is a 429, `max - current` is
 * `RateLimit-Remaining` and `ttl` (ms) is `RateLimit-Reset` (until the bucket is full again) and, on
 * a 429, `Retry-After` (until the next request would pass). A refused request takes no token.
 */

export interface BucketState {
  current: number;
  ttl: number;
}

/** Floating-point slack: a token that is due now counts as there. */
const EPSILON_MS = 1e-6;
/** Keys remembered at most (every key of a large installation); the least recent go first. */
const CAPACITY = 100_000;

export class TokenBuckets {
  /** Key → when its bucket is full again (ms since the epoch); insertion order = least recent first. */
  private readonly full = new Map<string, number>();
  /** The most recent key: asked again (one client sending), its order needs no change. */
  private last: string | undefined;

  /** Takes a token of `key`'s bucket, if there is one. */
  take(key: string, timeWindow: number, max: number): BucketState {
    const now = Date.now();
    const interval = timeWindow / max;
    const fullAt = Math.max(this.full.get(key) ?? now, now) + interval;
    // This request takes the bucket's last token when `fullAt` is a whole window away.
    const wait = fullAt - timeWindow - now;
    if (wait > EPSILON_MS) return { current: max + 1, ttl: wait };
    this.remember(key, fullAt);
    return { current: max - tokensLeft(fullAt - now, interval, max), ttl: fullAt - now };
  }

  /** Least recently used first out, past CAPACITY keys (a forgotten key has a full bucket). */
  private remember(key: string, fullAt: number): void {
    if (key !== this.last) {
      this.full.delete(key);
      this.last = key;
    }
    this.full.set(key, fullAt);
    if (this.full.size > CAPACITY) {
      const oldest = this.full.keys().next().value;
      if (oldest !== undefined) this.full.delete(oldest);
    }
  }
}

/** Tokens in a bucket that is full again in `untilFull` ms. */
function tokensLeft(untilFull: number, interval: number, max: number): number {
  return Math.min(max, Math.floor((max * interval - untilFull) / interval + EPSILON_MS));
}
