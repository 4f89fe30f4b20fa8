import { hash } from 'node:crypto';
import { OwnError } from '../contract/errors.js';
import { HttpError } from '../errors.js';
import type { IdempotencyStore } from '../store/idempotency.js';

/** Visible ASCII, as an HTTP header carries it unescaped. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** Answers are kept this long; the feature promises at least 24 hours. */
export const IDEMPOTENCY_TTL_MS = 48 * 60 * 60 * 1000;

export interface Answer<T> {
  response: T;
  /** True when this is the stored answer to an earlier request with the same key. */
  replayed: boolean;
}

/** SQLite's answer to a second row with the same (account, key). */
function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

const reused = () => new HttpError(422, OwnError.idempotencyKeyReused);

/**
 * Idempotency-Key for E7 and E8, per account. The first request with a key stores its answer in
 * the same transaction as its record; a repeat with the same key and the same request gets that
 * answer and stores nothing; the same key with another request is 422. A repeat that arrives
 * while the first is still being committed waits for it.
 *
 * Repeats are rare, so a key is not looked up before it is used: its row is inserted first in
 * the record's transaction, and only when that hits the primary key is the stored answer read.
 */
export function idempotency(store: IdempotencyStore) {
  const inFlight = new Map<string, { fingerprint: string; answer: Promise<unknown> }>();

  return {
    /** The key of a request, or undefined without the header; 400 when it is malformed. */
    keyOf(header: unknown): string | undefined {
      if (header === undefined) return undefined;
      if (typeof header !== 'string' || !KEY.test(header)) {
        throw new HttpError(400, OwnError.idempotencyKeyInvalid);
      }
      return header;
    },

    /**
     * Runs `create` once per (account, key). `create` receives `remember`, which it must call
     * first inside the transaction that stores the record, with the answer it will give.
     */
    async once<T>(
      accountId: string,
      key: string | undefined,
      request: { endpoint: string; body: unknown },
      create: (remember: (response: T) => void) => Promise<T>,
    ): Promise<Answer<T>> {
      if (key === undefined) return { response: await create(() => undefined), replayed: false };
      const fingerprint = hash(
        'sha256',
        `${request.endpoint}\n${JSON.stringify(request.body)}`,
        'base64url',
      );
      const slot = `${accountId}\n${key}`;

      const pending = inFlight.get(slot);
      if (pending) {
        if (pending.fingerprint !== fingerprint) throw reused();
        // It settles to the final answer (stored or replayed), or to the error the first got.
        const first = (await pending.answer) as Answer<T>;
        return { response: first.response, replayed: true };
      }
      const answer = (async (): Promise<Answer<T>> => {
        try {
          const response = await create((value) =>
            store.remember(accountId, key, fingerprint, JSON.stringify(value)),
          );
          return { response, replayed: false };
        } catch (error) {
          const stored = isDuplicateKey(error) ? store.find(accountId, key) : undefined;
          if (!stored) throw error;
          if (stored.fingerprint !== fingerprint) throw reused();
          return { response: JSON.parse(stored.response) as T, replayed: true };
        }
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
