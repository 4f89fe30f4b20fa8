/**
 * A token bucket as a store of @fastify/rate-limit (which counts in fixed windows only, and takes a
 * store of one's own; rate-limiter-flexible has no bucket either). Written as GCRA: per key, one
 * number, the time at which the bucket would be full again. A key may send `max` requests at once,
 * then one every `timeWindow / max` ms: a flooding key gets its allowance spread evenly over time
 * instead of a whole window's worth at the window's start.
 *
 * What the plugin makes of the answer: `current` over `max` is a 429, `max - current` is
 * `RateLimit-Remaining` and `ttl` (ms) is `RateLimit-Reset` (until the bucket is full again) and, on
 * a 429, `Retry-After` (until the next request would pass). A refused request takes no token.
 */

type Callback = (error: Error | null, result: { current: number; ttl: number }) => void;

/** Floating-point slack: a token that is due now counts as there. */
const EPSILON_MS = 1e-6;
/** Keys remembered at most (every key of a large installation); the least recent go first. */
const CAPACITY = 100_000;

export class TokenBucketStore {
  /** Key → when its bucket is full again (ms since the epoch); insertion order = least recent first. */
  private readonly full = new Map<string, number>();

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    const now = Date.now();
    const interval = timeWindow / max;
    const fullAt = Math.max(this.full.get(key) ?? now, now) + interval;
    // This request takes the bucket's last token when `fullAt` is a whole window away.
    const wait = fullAt - timeWindow - now;
    if (wait > EPSILON_MS) {
      callback(null, { current: max + 1, ttl: wait });
      return;
    }
    this.remember(key, fullAt);
    callback(null, { current: max - tokensLeft(fullAt - now, interval, max), ttl: fullAt - now });
  }

  /** The state `incr` would report, without taking a token. */
  read(key: string, callback: Callback, timeWindow: number, max: number): void {
    const now = Date.now();
    const fullAt = Math.max(this.full.get(key) ?? now, now);
    const interval = timeWindow / max;
    callback(null, { current: max - tokensLeft(fullAt - now, interval, max), ttl: fullAt - now });
  }

  child(): TokenBucketStore {
    return new TokenBucketStore();
  }

  /** Least recently used first out, past CAPACITY keys (a forgotten key has a full bucket). */
  private remember(key: string, fullAt: number): void {
    this.full.delete(key);
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
