import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Flushes a SQLite file's write-ahead log to disk off the event loop, for `DURABILITY=full`.
 *
 * With `synchronous=FULL` SQLite flushes the log inside COMMIT, on the thread that commits: with
 * better-sqlite3 that is the event loop, which then waits for the disk (a millisecond or more per
 * group) with nothing else to do. The group commit instead commits with `synchronous=NORMAL` (the
 * frames are written to the log, not flushed) and asks this for a flush, which runs in libuv's
 * thread pool while the event loop parses and commits the next group; each write is answered only
 * once a flush that began after its commit has finished. The guarantee is the same as FULL's (a
 * 2xx means the log holding the write is on disk: FULL also flushes only the log at commit); what
 * changes is that a committed write is visible to other requests for the length of one flush
 * before it is durable, as in any group commit that answers after the flush.
 *
 * Flushes never overlap: a request made while one runs is served by the next, which starts when
 * the running one ends and so covers every commit made before it; requests made meanwhile share
 * it. `fdatasync`, as SQLite itself uses on Linux. The directory is flushed once, at the first
 * flush, in case the log file was created by this process.
 */
export class WalSync {
  readonly #wal: string;
  readonly #directory: string;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;
  #directoryFlushed = false;

  constructor(databasePath: string) {
    this.#wal = `${databasePath}-wal`;
    this.#directory = dirname(databasePath);
  }

  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void> {
    if (this.#next) return this.#next;
    if (!this.#running) return this.#start();
    // The running flush may have begun before the caller's commit: the next one covers it.
    this.#next = this.#running.then(
      () => this.#start(),
      () => this.#start(),
    );
    return this.#next;
  }

  /** Resolves once every flush asked for so far has ended (before closing the file). */
  async settled(): Promise<void> {
    await Promise.allSettled([this.#running, this.#next]);
  }

  #start(): Promise<void> {
    this.#next = undefined;
    const running = this.#flush().finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }

  async #flush(): Promise<void> {
    // Opened for each flush: a log that SQLite deleted and made again (when the last connection
    // closed) is flushed as the file it is now, never through a stale descriptor.
    const log = await open(this.#wal, 'r+').catch((error: NodeJS.ErrnoException) => {
      // No log: SQLite removes it only after a checkpoint that flushed the database itself.
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (log) await syncAndClose(log, (file) => file.datasync());
    if (!this.#directoryFlushed) {
      await syncAndClose(await open(this.#directory, 'r'), (directory) => directory.sync());
      this.#directoryFlushed = true;
    }
  }
}

async function syncAndClose(file: FileHandle, sync: (file: FileHandle) => Promise<void>) {
  try {
    await sync(file);
  } finally {
    await file.close();
  }
}
