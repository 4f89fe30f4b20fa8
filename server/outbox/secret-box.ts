import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { DeliveryError } from '../outbound/delivery-error.js';

/** How a sealed secret starts (and which scheme sealed it). */
const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals the secrets an outbox job holds while it waits (a Discord webhook's token, in its path)
 * with SECRETS_KEY, so that the database only ever holds ciphertext: its rows, the old row
 * versions PostgreSQL leaves until VACUUM and the freed space after it (which PostgreSQL does not
 * zero, unlike SQLite's secure_delete), its WAL and its backups. AES-256-GCM with a random
 * 96-bit IV per secret; the key is the SHA-256 of SECRETS_KEY (at least 32 characters, shared by
 * every replica). Without SECRETS_KEY secrets are stored as they are.
 */
export interface SecretBox {
  seal(secret: string): string;
  /** The secret; a DeliveryError (not retryable) when it was sealed with another key or none. */
  open(stored: string): string;
}

export function secretBox(secretsKey: string | undefined): SecretBox {
  const key =
    secretsKey === undefined ? undefined : createHash('sha256').update(secretsKey).digest();
  return {
    seal(secret) {
      if (!key) return secret;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([
        cipher.update(secret, 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${PREFIX}${iv.toString('base64url')}:${sealed.toString('base64url')}`;
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      if (!key) throw new DeliveryError('sealed with SECRETS_KEY, which is not set', false);
      const [iv = '', sealed = ''] = stored.slice(PREFIX.length).split(':');
      const bytes = Buffer.from(sealed, 'base64url');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new DeliveryError('sealed with another SECRETS_KEY', false);
      }
    },
  };
}
