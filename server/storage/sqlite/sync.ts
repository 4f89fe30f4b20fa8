/**
 * better-sqlite3 is synchronous; the repository interfaces are not. Each table module implements
 * the synchronous form of its interface once, and `wrap` turns it into the interface: reads run
 * at once, writes through `write` (the group commit, or the transaction they are part of).
 */
// biome-ignore lint/suspicious/noExplicitAny: the mapped type must accept every method signature.
type AnyFunction = (...args: any[]) => unknown;

export type Sync<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};

export type Runner = <R>(fn: () => R) => Promise<R>;

/** Runs `fn` now, as a promise: a throw becomes a rejection. */
export const now: Runner = (fn) => {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
};

export function wrap<T extends object>(
  sync: Sync<T>,
  writes: readonly (keyof T)[],
  write: Runner,
): T {
  const wrapped: Record<string, AnyFunction> = {};
  for (const [name, fn] of Object.entries(sync as Record<string, AnyFunction>)) {
    const run = writes.includes(name as keyof T) ? write : now;
    wrapped[name] = (...args) => run(() => fn(...args));
  }
  return wrapped as T;
}
