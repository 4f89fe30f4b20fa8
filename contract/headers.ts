/** Header names of the API, lowercase as Node presents them. */
export const Headers = {
  /** The caller's API key (spec part 5). */
  apiKey: 'x-api-key',
  /** Makes an E7/E8 request safe to retry: see `idempotency-key.ts`. */
  idempotencyKey: 'idempotency-key',
  /** `true` on an answer replayed for a repeated Idempotency-Key. */
  idempotentReplayed: 'idempotent-replayed',
  /** On a 500: the id under which the server logged the failure. */
  requestId: 'x-request-id',
  retryAfter: 'retry-after',
} as const;
