import { StorageFull, StorageUnavailable } from '../domain/domain-errors.js';
import type { ReplicaStatus } from '../storage/read-routing/replica-status.js';
import type { Storage } from '../storage/storage.js';

/** Liveness with a database round trip, for load balancers and orchestrators. */
export function healthService(storage: Storage) {
  return {
    /**
     * Resolves when the database answers and takes writes; throws StorageFull while writes fail
     * for lack of space, StorageUnavailable (`flush-failed`) once a flush of the log failed (until
     * a restart), or what the round trip failed with. With a read replica, says
     * where reads go and why: the server serves either way (from the primary when it must).
     */
    async check(): Promise<{ replica?: ReplicaStatus }> {
      await storage.ping();
      if (storage.flushFailed()) throw new StorageUnavailable('flush-failed');
      if (await storage.full()) throw new StorageFull('storage-full');
      const replica = storage.replica();
      return replica === undefined ? {} : { replica };
    },
  };
}

export type HealthService = ReturnType<typeof healthService>;
