import { generateToken, hashApiKey } from '../domain/api-keys.js';
import { Forbidden, Unauthorized } from '../domain/domain-errors.js';
import type { Storage } from '../storage/storage.js';
import type { Credentials } from './credentials.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A session lasts 30 days from its last use. */
export const SESSION_TTL_MS = 30 * DAY_MS;
/** Renewed at most once a day, so that a page view is not a write. */
const RENEW_AFTER_MS = DAY_MS;

export interface Session {
  accountId: string;
  expiresAt: number;
  /** The secret of this session's CSRF tokens: new at each sign-in, gone at sign-out. */
  csrfSecret: string;
  /** The expiry moved on this request: the cookie should be sent again. */
  renewed: boolean;
}

/**
 * Dashboard sessions. Signing in takes a full key (an ingest key may not); the session's token is
 * new at every sign-in, lives in a cookie and only its hash in the database, beside the secret of
 * the session's CSRF tokens (also new at every sign-in). Revoking the key that opened a session
 * ends the session too.
 */
export function sessionService(storage: Storage, credentials: Credentials) {
  return {
    /** A new session for the key's account: its token (for the cookie) and expiry. */
    async signIn(apiKey: string): Promise<{ token: string; expiresAt: number }> {
      const owner = await credentials.verify(apiKey);
      if (!owner) throw new Unauthorized('key');
      if (owner.scope !== 'full') throw new Forbidden('ingest-only');
      const token = generateToken();
      const expiresAt = Date.now() + SESSION_TTL_MS;
      await storage.sessions.create(hashApiKey(token), owner, expiresAt, generateToken());
      return { token, expiresAt };
    },

    /** The session a cookie's token names, renewed when due; undefined when unknown or expired. */
    async authenticate(token: string | undefined): Promise<Session | undefined> {
      if (!token || token.length > 128) return undefined;
      const tokenHash = hashApiKey(token);
      const now = Date.now();
      const found = await storage.sessions.find(tokenHash, now);
      if (!found) return undefined;
      if (now + SESSION_TTL_MS - found.expiresAt < RENEW_AFTER_MS) {
        return { ...found, renewed: false };
      }
      const expiresAt = now + SESSION_TTL_MS;
      await storage.sessions.renew(tokenHash, expiresAt);
      return { ...found, expiresAt, renewed: true };
    },

    signOut: (token: string): Promise<void> => storage.sessions.delete(hashApiKey(token)),

    purgeExpired: (): Promise<number> => storage.sessions.purgeExpired(Date.now()),
  };
}

export type SessionService = ReturnType<typeof sessionService>;
