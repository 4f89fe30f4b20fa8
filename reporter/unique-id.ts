/**
 * A random id for what must be unique but need not be secret: one execution of the step (in its
 * Idempotency-Key, beside the CI's own build and job identity) and the delimiter of an output.
 * `node:crypto` would draw it too, but loading that module costs a step ≈ 4 ms of its ≈ 40
 * (BENCHMARKS.md, "Reporting step time"). Math.random is seeded afresh in every process from the
 * system's entropy (Node hands V8 OpenSSL's generator as its entropy source), so two executions
 * draw different ids: 128 bits, as 32 hex digits.
 */
export function uniqueId(): string {
  let id = '';
  for (let i = 0; i < 4; i++) {
    id += Math.floor(Math.random() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0');
  }
  return id;
}
