import { hash } from 'node:crypto';
import { Conflict } from '../domain/domain-errors.js';
import type { AppendResult, IdempotencyClaim } from '../storage/storage.js';

export interface Answer<T> {
  response: T;
  /** True when this is the stored answer to an earlier request with the same key. */
  replayed: boolean;
}

/**
 * Idempotency-Key for E7 and E8, per account. The first request with a key stores its answer in
 * the same transaction as its record; a repeat with the same key and the same request gets that
 * answer and stores nothing; the same key with another request is a Conflict. A repeat that
 * arrives while the first is still being committed (in this process) waits for it; one arriving
 * elsewhere meets the stored key.
 */
export function idempotency() {
  const inFlight = new Map<string, { fingerprint: string; answer: Promise<unknown> }>();

  return {
    /**
     * Runs `append` once per (account, key). `append` receives the claim to store with the
     * record (undefined without a key) and returns what the storage did.
     */
    async once<T>(
      accountId: string,
      key: string | undefined,
      request: { endpoint: string; body: unknown },
      response: T,
      append: (claim: IdempotencyClaim | undefined) => Promise<AppendResult>,
    ): Promise<Answer<T>> {
      if (key === undefined) {
        await append(undefined);
        return { response, replayed: false };
      }
      const fingerprint = hash(
        'sha256',
        `${request.endpoint}\n${JSON.stringify(request.body)}`,
        'base64url',
      );
      const slot = `${accountId}\n${key}`;

      const pending = inFlight.get(slot);
      if (pending) {
        if (pending.fingerprint !== fingerprint) throw new Conflict('idempotency-key-reused');
        // It settles to the final answer (stored or replayed), or to the error the first got.
        const first = (await pending.answer) as Answer<T>;
        return { response: first.response, replayed: true };
      }
      const answer = (async (): Promise<Answer<T>> => {
        const claim = { accountId, key, fingerprint, response: JSON.stringify(response) };
        const result = await append(claim);
        if (result.stored) return { response, replayed: false };
        if (result.earlier.fingerprint !== fingerprint) {
          throw new Conflict('idempotency-key-reused');
        }
        return { response: JSON.parse(result.earlier.response) as T, replayed: true };
      })();
      inFlight.set(slot, { fingerprint, answer });
      try {
        return await answer;
      } finally {
        inFlight.delete(slot);
      }
    },
  };
}

export type Idempotency = ReturnType<typeof idempotency>;
