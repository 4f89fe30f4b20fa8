import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who is reading, for a backend with a read replica (docs/operations.md, Read replica): the HTTP
 * layer opens a scope per request and names its caller once authenticated; the storage decides
 * from it where each read goes. Work outside any request (workers, timers started at boot, the
 * admin CLI) has no scope, and reads the primary.
 */
export interface ReadScope {
  /** A GET or HEAD: its reads may be served by the replica. Any other method reads the primary. */
  readonly safe: boolean;
  /**
   * The credential acting: `key:<key id>` for the API, `session:<account id>` for the dashboard;
   * undefined for anonymous pages (public pages, share links), which never wrote anything.
   */
  caller: string | undefined;
}

const scopes = new AsyncLocalStorage<ReadScope>();

/** Runs `work` (and everything it starts) in a new scope of a request with this method. */
export function inReadScope<T>(method: string, work: () => T): T {
  return scopes.run({ safe: method === 'GET' || method === 'HEAD', caller: undefined }, work);
}

/** Names the caller of the current request's scope (no scope: nothing to do). */
export function identifyCaller(caller: string): void {
  const scope = scopes.getStore();
  if (scope !== undefined) scope.caller = caller;
}

export const currentReadScope = (): ReadScope | undefined => scopes.getStore();
