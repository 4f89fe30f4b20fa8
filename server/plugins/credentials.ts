import type { Db } from '../db/database.js';
import { hashApiKey } from '../domain/api-keys.js';
import type { AccountStore, KeyOwner } from '../store/accounts.js';

const MAX_CACHED_KEYS = 10_000;
/** How stale the view of other processes' commits may get (a read per request was costly). */
const EXTERNAL_CHANGE_CHECK_MS = 1;

/**
 * API-key verification with a cache of known-good keys (keyed by hash, never by the key itself).
 * Revocation takes effect at once: in-process revocations go through `revoke`, and a commit by any
 * other connection (the admin CLI) bumps SQLite's `data_version`, which empties the cache; that
 * is looked at on the first request of each millisecond.
 */
export function credentials(db: Db, accounts: AccountStore) {
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const cache = new Map<string, KeyOwner>();
  let seenVersion = dataVersion.get();
  let checkedAt = performance.now();

  return {
    verify(key: unknown): KeyOwner | undefined {
      if (typeof key !== 'string' || key.length === 0 || key.length > 512) return undefined;
      const now = performance.now();
      if (now - checkedAt >= EXTERNAL_CHANGE_CHECK_MS) {
        checkedAt = now;
        const version = dataVersion.get();
        if (version !== seenVersion) {
          cache.clear();
          seenVersion = version;
        }
      }
      const hash = hashApiKey(key);
      const cached = cache.get(hash);
      if (cached) return cached;
      const owner = accounts.findKey(hash);
      if (owner) {
        if (cache.size >= MAX_CACHED_KEYS) cache.clear();
        cache.set(hash, owner);
      }
      return owner;
    },

    revoke(keyId: string): boolean {
      const revoked = accounts.revokeKey(keyId);
      cache.clear();
      return revoked;
    },
  };
}

export type Credentials = ReturnType<typeof credentials>;
