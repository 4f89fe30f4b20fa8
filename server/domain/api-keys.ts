import { hash, randomBytes } from 'node:crypto';

/** Readable prefix of every key we issue, so leaked keys are easy to recognise in scans. */
export const API_KEY_PREFIX = 'cis_';

/** A new key: the prefix and 32 random bytes (256 bits), base64url. Shown once, never stored. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** What the database keeps instead of a key or a token. (The one-shot `hash` is the cheap form.) */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A secret token (a session's): 256 random bits, base64url. Stored only as its hash. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A key as stored: its hash, and its first characters for people telling keys apart. */
export interface KeyDigest {
  hash: string;
  prefix: string;
}

export function digestApiKey(key: string): KeyDigest {
  return { hash: hashApiKey(key), prefix: key.slice(0, API_KEY_PREFIX.length + 6) };
}
