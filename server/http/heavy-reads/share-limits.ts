import { createHash } from 'node:crypto';
import { TokenBuckets } from '../api/token-bucket-store.js';

export interface ShareLimitsConfig {
  /** Requests per share token and minute, sustained, and at once (0: no limit). */
  perTokenPerMinute: number;
  tokenBurst: number;
  /** Requests per client address and minute, sustained, and at once (0: no limit). */
  perAddressPerMinute: number;
  addressBurst: number;
}

/**
 * Rate limits of share pages and badges (which need no key): a token bucket per share token and
 * one per client address, counted in this process's memory like the API's per-key limits (the
 * same store). A request passes when both have a token; else it is refused with the seconds until
 * it would pass (Retry-After). A token is counted by its hash, never kept itself.
 */
export class ShareLimits {
  private readonly buckets = new TokenBuckets();

  constructor(private readonly config: ShareLimitsConfig) {}

  /** Undefined when the request may go on; else the seconds to wait. */
  admit(token: string, address: string): number | undefined {
    const { perTokenPerMinute, tokenBurst, perAddressPerMinute, addressBurst } = this.config;
    const byAddress = this.take(`ip:${address}`, perAddressPerMinute, addressBurst);
    if (byAddress !== undefined) return byAddress;
    const tokenHash = createHash('sha256').update(token).digest('base64url').slice(0, 22);
    return this.take(`token:${tokenHash}`, perTokenPerMinute, tokenBurst);
  }

  private take(key: string, perMinute: number, burst: number): number | undefined {
    if (perMinute === 0) return undefined;
    const { current, ttl } = this.buckets.take(key, (burst * 60_000) / perMinute, burst);
    return current > burst ? Math.max(1, Math.ceil(ttl / 1000)) : undefined;
  }
}
