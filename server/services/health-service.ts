import { StorageFull } from '../domain/domain-errors.js';
import type { Storage } from '../storage/storage.js';

/** Liveness with a database round trip, for load balancers and orchestrators. */
export function healthService(storage: Storage) {
  return {
    /**
     * Resolves when the database answers and has room to write; throws StorageFull while writes
     * fail for lack of space, or what the round trip failed with.
     */
    async check(): Promise<void> {
      await storage.ping();
      if (await storage.full()) throw new StorageFull('storage-full');
    },
  };
}

export type HealthService = ReturnType<typeof healthService>;
