/**
 * The Idempotency-Key rule: 1-255 visible ASCII characters, as an HTTP header carries them
 * unescaped. A client reuses a key for every retry of one request and never for another request.
 * (No zod here: the reporters import this module at start-up.)
 */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Answers are replayed for this long; the feature promises at least 24 hours. */
export const IDEMPOTENCY_TTL_MS = 48 * 60 * 60 * 1000;
