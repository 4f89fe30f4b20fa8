/**
 * A route's hooks of one kind (as Fastify's `onRoute` gives them: none, one or a list) with `hook`
 * put first or last: the API's own route-level hooks (authentication first, the rate limit
 * last, the key's concurrency cap first among the body's).
 */
export function withHook<T>(hooks: T | T[] | undefined, hook: T, at: 'first' | 'last'): T[] {
  const list = hooks === undefined ? [] : ([hooks].flat() as T[]);
  return at === 'first' ? [hook, ...list] : [...list, hook];
}
