import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { FlushTiming } from './flush-timing.js';

/**
 * Flushes a SQLite file's write-ahead log to disk off the event loop, for `DURABILITY=full`.
 *
 * With `synchronous=FULL` SQLite flushes the log inside COMMIT, on the thread that commits: with
 * better-sqlite3 that is the event loop, which then waits for the disk (a millisecond or more per
 * group) with nothing else to do. Instead the connection commits with `synchronous=NORMAL` (the
 * frames are written to the log, not flushed) and the group commit asks this for a flush, which
 * runs in libuv's thread pool while the event loop parses and commits the next group; each write
 * is answered only once a flush that began after its commit has finished. The guarantee is FULL's
 * (a 2xx means the log holding the write is on disk: FULL also flushes only the log at commit);
 * what changes is that a committed write is visible to other requests for the length of one flush
 * before it is durable, as in any group commit that answers after the flush.
 *
 * Flushes never overlap: a request made while one runs is served by the next, which starts when
 * the running one ends and so covers every commit made before it; requests made meanwhile share
 * it. `fdatasync`, as SQLite itself uses on Linux. The log is opened once, after the connection
 * (which created it) and kept open: SQLite deletes it only when the last connection closes, and
 * the server's stays open until the end; the directory is flushed once, with the first flush.
 *
 * On a disk whose flushes are fast, the group commit flushes on the event loop instead
 * (`flushHere`, chosen by `flush-timing.ts`): the same `fdatasync`, made before the group is
 * answered, with no hand-off to the thread pool.
 */
export class WalSync implements Flusher {
  readonly #wal: string;
  readonly #directory: string;
  #fd: number | undefined;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;
  #directoryFlushed = false;
  readonly #timing: FlushTiming;
  /**
   * The first flush's failure, which every later flush reports too: after a failed `fdatasync`
   * Linux may have dropped the pages it could not write and report the next one a success.
   */
  #failure: unknown;

  /** `inlineMaxMs`: flushes are made on the event loop while they average at most this (ms). */
  constructor(databasePath: string, inlineMaxMs = 0) {
    this.#wal = `${databasePath}-wal`;
    this.#directory = dirname(databasePath);
    this.#timing = new FlushTiming(inlineMaxMs);
  }

  /**
   * Flushes the log on this thread, covering every commit made so far, if flushes are fast here
   * (true); else does nothing (false) and the caller asks `sync()`. Throws if the flush failed.
   */
  flushHere(): boolean {
    if (this.#failure !== undefined) throw this.#failure;
    // One running in the thread pool: flushes never overlap, the caller waits for the next.
    if (this.#running || !this.#timing.inline()) return false;
    try {
      const log = this.#log();
      const started = performance.now();
      fdatasyncSync(log);
      this.#timing.timed(performance.now() - started);
      this.#flushDirectoryOnce();
    } catch (error) {
      this.#failure = error;
      throw error;
    }
    return true;
  }

  /** Resolves once everything committed before the call is on disk; rejects after a failed flush. */
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

  /** After the last flush (the group commit drained): lets go of the log. */
  close(): void {
    if (this.#fd !== undefined) closeQuietly(this.#fd);
    this.#fd = undefined;
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
    if (this.#failure !== undefined) throw this.#failure;
    try {
      await flushed(this.#log());
      this.#flushDirectoryOnce();
    } catch (error) {
      this.#failure ??= error;
      throw error;
    }
  }

  /** The log, opened once. */
  #log(): number {
    // 'r+' never creates: the log exists once the connection has written (in WAL mode it is
    // made when the connection first reads or writes, before any commit asks for a flush).
    this.#fd ??= openSync(this.#wal, 'r+');
    return this.#fd;
  }

  /**
   * The directory that names the log, after the first flush of the log, on this thread: once in
   * the process's life, not worth a hand-off to the thread pool.
   */
  #flushDirectoryOnce(): void {
    if (this.#directoryFlushed) return;
    const directory = openSync(this.#directory, 'r');
    try {
      fsyncSync(directory);
    } finally {
      closeQuietly(directory);
    }
    this.#directoryFlushed = true;
  }
}

/** How the group commit makes a committed group durable before answering it. */
export interface Flusher {
  /** Flushed now, on this thread (true), or left to `sync()` (false). */
  flushHere(): boolean;
  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void>;
}

function flushed(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fdatasync(fd, (error) => (error ? reject(error) : resolve()));
  });
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Closing a descriptor only read or flushed: nothing to lose.
  }
}
