import { hash, randomBytes } from 'node:crypto';

/** Readable prefix of every key we issue, so leaked keys are easy to recognise in scans. */
export const API_KEY_PREFIX = 'cis_';

/** A new key: the prefix and 32 random bytes (256 bits), base64url. Shown once, never stored. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** What the database keeps instead of the key. (The one-shot `hash` is the cheap form.) */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** The first characters of a key, enough for a person to tell keys apart. */
export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 6);
}
