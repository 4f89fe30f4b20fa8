import postgres from 'postgres';

/**
 * The channels replicas tell each other about commits on (`pg_notify` in the committing
 * transaction: PostgreSQL delivers it on commit, to every listening connection).
 */
export const Channel = {
  /** Outbox jobs were queued: wake the workers. */
  outbox: 'ci_stats_outbox',
  /** A key was revoked: forget the keys trusted from cache. */
  keys: 'ci_stats_keys',
  /** What public pages show changed: their caches are stale. */
  pages: 'ci_stats_pages',
} as const;

export interface PgNotifications {
  /** Whether a key may have been revoked (anywhere) since the last call. Never waits. */
  keysMayHaveChanged(): boolean;
  /** Moves after each change to what pages show, by anyone. Never waits. */
  pagesVersion(): number;
  /** `listener` runs after a commit (anywhere) that queued outbox jobs. */
  onJobsQueued(listener: () => void): void;
  close(): Promise<void>;
}

/** How long the LISTEN connection waits before each new attempt while the database is away. */
const RECONNECT_SECONDS = () => 0.2 + Math.random() * 0.3;

/**
 * One LISTEN connection per process, on the three channels. The client reconnects it by itself
 * (retrying every fraction of a second, not with its default backoff of up to 20 s, so that a
 * revocation made once the database is back reaches this process within a second); notifications
 * sent while it was away are lost, so each (re)connection counts as a change of everything.
 */
export async function listenForChanges(url: string): Promise<PgNotifications> {
  const listener = postgres(url, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 5,
    backoff: RECONNECT_SECONDS,
  });
  let keysChanged = true;
  let pages = 0;
  const jobListeners: (() => void)[] = [];
  const jobsQueued = () => {
    for (const listener of jobListeners) listener();
  };
  const everythingChanged = () => {
    keysChanged = true;
    pages += 1;
    jobsQueued();
  };

  // `onlisten` runs on the first connection and on each reconnection.
  const channels: [string, () => void][] = [
    [Channel.keys, () => (keysChanged = true)],
    [Channel.pages, () => (pages += 1)],
    [Channel.outbox, jobsQueued],
  ];
  try {
    await Promise.all(
      channels.map(([channel, onNotify]) => listener.listen(channel, onNotify, everythingChanged)),
    );
  } catch (error) {
    await listener.end({ timeout: 0 });
    throw error;
  }

  return {
    keysMayHaveChanged() {
      const changed = keysChanged;
      keysChanged = false;
      return changed;
    },
    pagesVersion: () => pages,
    onJobsQueued(listener) {
      jobListeners.push(listener);
    },
    close: () => listener.end({ timeout: 0 }),
  };
}
