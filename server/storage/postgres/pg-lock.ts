import postgres from 'postgres';
import { KeyedLock } from '../keyed-lock.js';
import { reaching } from './pg-unavailable.js';

/** The first wait for a key another process holds, then doubling up to the longest. */
const FIRST_WAIT_MS = 5;
const LONGEST_WAIT_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PgLock {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Tasks with the same key one after another, across every process on the database: in this
 * process a KeyedLock, between processes a session-level advisory lock on the key's 64-bit hash,
 * all of them held by one connection of its own.
 *
 * The lock is taken with `pg_try_advisory_lock`, retried after a short wait while another
 * process holds it, rather than with the blocking `pg_advisory_lock`: waiting on one shared
 * connection would hold up every other key, and a connection per waiting task could run out of
 * connections when tasks nest (an account's lock, then its alias's), so none is ever blocked.
 * Should that connection drop, PostgreSQL releases its locks; the tasks under way then fail on
 * the database too, which is away.
 */
export function pgLock(url: string): PgLock {
  const local = new KeyedLock();
  const connection = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });

  async function acquire(key: string): Promise<void> {
    for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
      const [row] = await connection<{ locked: boolean }[]>`
        SELECT pg_try_advisory_lock(hashtextextended(${key}, 0)) AS locked`;
      if (row?.locked) return;
      await sleep(wait);
    }
  }

  async function release(key: string): Promise<void> {
    // When the connection was lost meanwhile, PostgreSQL has released the lock already.
    await connection`SELECT pg_advisory_unlock(hashtextextended(${key}, 0))`.catch(() => {});
  }

  return {
    run: (key, task) =>
      local.run(key, async () => {
        // The task's own failures are its own: only the lock's are the database's.
        await reaching(() => acquire(key));
        try {
          return await task();
        } finally {
          await release(key);
        }
      }),
    close: () => connection.end({ timeout: 5 }),
  };
}
