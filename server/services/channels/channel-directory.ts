import type { Storage, StoredChannel } from '../../storage/storage.js';

/** How long another process's change to a project's channels may go unseen on ingest. */
export const DIRECTORY_TTL_MS = 5_000;
const MAX_PROJECTS = 10_000;

/**
 * The channels of each project, as the ingest path reads them: remembered for a few seconds,
 * since a database read per ingest was the hot path's largest cost (project-access.ts). A change
 * made through this process is seen at once; one made through another replica within
 * DIRECTORY_TTL_MS. Delivery reads the channel again, so a deleted channel is never sent to, and
 * its rules are checked again against the current ones.
 */
export function channelDirectory(storage: Storage, now: () => number = Date.now) {
  const known = new Map<string, { at: number; channels: StoredChannel[] }>();
  return {
    async of(projectId: string): Promise<StoredChannel[]> {
      const entry = known.get(projectId);
      if (entry && now() - entry.at < DIRECTORY_TTL_MS) return entry.channels;
      const channels = await storage.channels.list(projectId);
      if (known.size >= MAX_PROJECTS) known.clear();
      known.set(projectId, { at: now(), channels });
      return channels;
    },
    changed(projectId: string): void {
      known.delete(projectId);
    },
  };
}

export type ChannelDirectory = ReturnType<typeof channelDirectory>;
