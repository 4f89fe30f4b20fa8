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
 * 96-bit IV per secret and a full 128-bit tag; the key is the SHA-256 of SECRETS_KEY (at least 32
 * characters, shared by every replica). `context` (the webhook's id) is authenticated with it, so
 * a sealed token moved into another job's row does not open. On SQLite the key is made at first
 * start when SECRETS_KEY is unset (secrets-key.ts); on PostgreSQL without SECRETS_KEY secrets are
 * stored as they are.
 */
export interface SecretBox {
  seal(secret: string, context: string): string;
  /** The secret; a DeliveryError (not retryable) when it was sealed with another key or none. */
  open(stored: string, context: string): string;
}

/** Whether a stored secret is sealed (rather than stored as it is, by a server without a key). */
export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

export function secretBox(secretsKey: string | undefined): SecretBox {
  const key =
    secretsKey === undefined ? undefined : createHash('sha256').update(secretsKey).digest();
  return {
    seal(secret, context) {
      if (!key) return secret;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const sealed = Buffer.concat([
        cipher.update(secret, 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${PREFIX}${iv.toString('base64url')}:${sealed.toString('base64url')}`;
    },
    open(stored, context) {
      if (!stored.startsWith(PREFIX)) return stored;
      if (!key) throw new DeliveryError('sealed with SECRETS_KEY, which is not set', false);
      const [ivText = '', sealedText = ''] = stored.slice(PREFIX.length).split(':');
      const iv = Buffer.from(ivText, 'base64url');
      const bytes = Buffer.from(sealedText, 'base64url');
      try {
        if (iv.length !== IV_BYTES || bytes.length < TAG_BYTES) throw new Error('malformed');
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new DeliveryError('sealed with another SECRETS_KEY or for another webhook', false);
      }
    },
  };
}
