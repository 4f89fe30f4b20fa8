import type { Storage } from '../storage/storage.js';

/** Liveness with a database round trip, for load balancers and orchestrators. */
export function healthService(storage: Storage) {
  return {
    /** Resolves when the database answers; throws what it failed with otherwise. */
    check: (): Promise<void> => storage.ping(),
  };
}

export type HealthService = ReturnType<typeof healthService>;
