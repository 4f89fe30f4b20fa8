import type { FastifyInstance } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests with a wrong or missing API key, counted per client address. */
    badKeys: BadKeys;
  }
}

export interface BadKeys {
  /** Counts one more from `address`: the ms until it may try again when over the limit. */
  count(address: string): Promise<number | undefined>;
}

/**
 * RATE_LIMIT_BAD_KEYS_PER_MINUTE requests with a wrong or missing key per client address
 * (`request.ip`: `TRUST_PROXY` decides whose address that is) and minute, counted by
 * rate-limiter-flexible in this process's memory; past them, such requests get 429 instead of 401
 * (after the refusals' pause), until the minute is over. A request with a valid key is never
 * refused by this count, so a flood of wrong keys from a shared address (a NAT, an unconfigured
 * proxy) cannot lock out the good keys behind it.
 */
export function countBadKeys(app: FastifyInstance): void {
  const perMinute = app.config.rateLimits.badKeysPerMinute;
  const limiter =
    perMinute === 0 ? undefined : new RateLimiterMemory({ points: perMinute, duration: 60 });
  app.decorate('badKeys', {
    async count(address: string) {
      if (limiter === undefined) return undefined;
      try {
        await limiter.consume(address);
        return undefined;
      } catch (refused) {
        if (refused instanceof RateLimiterRes) return refused.msBeforeNext;
        throw refused;
      }
    },
  });
}
