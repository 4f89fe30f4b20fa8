import { ReadTimeout, StorageFull, StorageUnavailable } from '../../domain/domain-errors.js';

/**
 * The client's and the system's words for "the database cannot be reached" (refused, reset,
 * timed out, closed, or the pool ended), and PostgreSQL's own: 57P01-57P03 (an administrator or
 * a crash shut the server down, or it is still starting) and class 08 (connection exceptions).
 */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
]);

export function isUnreachable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  // Node reports a failed connection to a name with several addresses as an AggregateError.
  if (error instanceof AggregateError) return error.errors.some(isUnreachable);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (UNREACHABLE.has(code) || code.startsWith('08'));
}

/** PostgreSQL's disk_full: a write could not extend a file for lack of space. */
const DISK_FULL = '53100';

/** PostgreSQL's query_canceled: here, a statistics read past its statement_timeout. */
const QUERY_CANCELED = '57014';

/**
 * A lost database becomes the domain's StorageUnavailable, a full disk its StorageFull, a read
 * cancelled by its statement_timeout its ReadTimeout (all 503 in HTTP); anything else as is.
 */
export function translated(error: unknown): unknown {
  if (isUnreachable(error)) return new StorageUnavailable('database');
  const code = (error as { code?: unknown } | null)?.code;
  if (code === DISK_FULL) return new StorageFull('storage-full');
  return code === QUERY_CANCELED ? new ReadTimeout('read-timeout') : error;
}

/** Runs `work`, translating a lost database or a full disk (`observe` sees what it became). */
export async function reaching<T>(
  work: () => Promise<T>,
  observe: (error: unknown) => unknown = (error) => error,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw observe(translated(error));
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the mapped type must accept every method signature.
type AnyMethod = (...args: any[]) => Promise<unknown>;

/** The repository with every method's failures translated (see `translated`) and observed. */
export function guarded<T extends object>(repository: T, observe?: (error: unknown) => unknown): T {
  const wrapped: Record<string, AnyMethod> = {};
  for (const [name, method] of Object.entries(repository as Record<string, AnyMethod>)) {
    wrapped[name] = (...args) => reaching(() => method(...args), observe);
  }
  return wrapped as T;
}
