import { hashApiKey } from '../domain/api-keys.js';
import type { KeyOwner, Storage } from '../storage/storage.js';

const MAX_CACHED_KEYS = 10_000;
const MAX_KEY_LENGTH = 512;

/**
 * API-key verification with a cache of known-good keys (keyed by hash, never by the key itself).
 * Revocation takes effect at once: a revocation in this process calls `forget`, and one by anyone
 * else is reported by the storage's `keysMayHaveChanged`, asked on every request.
 */
export function credentials(storage: Storage) {
  const cache = new Map<string, KeyOwner>();
  // When each key was last used, kept here until the next flush (see api-key-service).
  let uses = new Map<string, number>();

  return {
    /** The owner of a presented key, or undefined for a missing, unknown or revoked one. */
    async verify(key: unknown): Promise<KeyOwner | undefined> {
      if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
        return undefined;
      }
      if (storage.keysMayHaveChanged()) cache.clear();
      const hash = hashApiKey(key);
      let owner = cache.get(hash);
      if (owner === undefined) {
        owner = await storage.accounts.findKey(hash);
        if (owner === undefined) return undefined;
        if (cache.size >= MAX_CACHED_KEYS) cache.clear();
        cache.set(hash, owner);
      }
      uses.set(owner.keyId, Date.now());
      return owner;
    },

    /** The keys used since the last call, and when each was last used. */
    takeUses(): [string, number][] {
      const taken = [...uses];
      uses = new Map();
      return taken;
    },

    /** After a revocation: no key is trusted from the cache any more. */
    forget(): void {
      cache.clear();
    },
  };
}

export type Credentials = ReturnType<typeof credentials>;
