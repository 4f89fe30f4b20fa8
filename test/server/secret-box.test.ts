import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../server/outbound/delivery-error.js';
import { secretBox } from '../../server/outbox/secret-box.js';

/** outbox/secret-box.ts: what SECRETS_KEY seals opens only with that key, for that webhook. */

const KEY = '0123456789abcdef0123456789abcdef';
const PATH = '/api/webhooks/112233/tok3n_SECRET';

const refusal = (open: () => string) => {
  try {
    open();
  } catch (error) {
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).retryable).toBe(false);
    return (error as DeliveryError).message;
  }
  throw new Error('opened');
};

describe('secretBox', () => {
  it('seals to a new text each time that holds nothing of the secret, and opens it', () => {
    const box = secretBox(KEY);
    const one = box.seal(PATH, '112233');
    const two = box.seal(PATH, '112233');
    expect(one).toMatch(/^sealed:v1:[\w-]{16}:[\w-]+$/);
    expect(one).not.toBe(two);
    expect(one).not.toContain('tok3n');
    expect(box.open(one, '112233')).toBe(PATH);
    expect(secretBox(KEY).open(two, '112233')).toBe(PATH);
  });

  it('refuses another key, another webhook, a changed byte and a shortened tag', () => {
    const sealed = secretBox(KEY).seal(PATH, '112233');
    const other = 'sealed with another SECRETS_KEY or for another webhook';
    expect(refusal(() => secretBox(`${KEY}x`).open(sealed, '112233'))).toBe(other);
    expect(refusal(() => secretBox(KEY).open(sealed, '445566'))).toBe(other);
    const [iv, body] = sealed.slice('sealed:v1:'.length).split(':') as [string, string];
    const bytes = Buffer.from(body, 'base64url');
    const flipped = Buffer.from(bytes);
    flipped[0] = (flipped[0] as number) ^ 1;
    const tampered = `sealed:v1:${iv}:${flipped.toString('base64url')}`;
    expect(refusal(() => secretBox(KEY).open(tampered, '112233'))).toBe(other);
    // Node accepts GCM tags of 4 bytes unless told their length: a cut tag must not pass.
    const cut = `sealed:v1:${iv}:${bytes.subarray(0, bytes.length - 12).toString('base64url')}`;
    expect(refusal(() => secretBox(KEY).open(cut, '112233'))).toBe(other);
    expect(refusal(() => secretBox(KEY).open('sealed:v1::', '112233'))).toBe(other);
  });

  it('without a key stores secrets as they are, and refuses a sealed one', () => {
    const box = secretBox(undefined);
    expect(box.seal(PATH, '112233')).toBe(PATH);
    expect(box.open(PATH, '112233')).toBe(PATH);
    const sealed = secretBox(KEY).seal(PATH, '112233');
    expect(refusal(() => box.open(sealed, '112233'))).toBe(
      'sealed with SECRETS_KEY, which is not set',
    );
    // A job queued before the key was set still opens.
    expect(secretBox(KEY).open(PATH, '112233')).toBe(PATH);
  });
});
