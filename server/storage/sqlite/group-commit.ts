import type { Db } from './sqlite-database.js';
import type { Flusher } from './wal-sync.js';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * What every write is refused with once a flush of the log has failed (`cause`: that flush's
 * error). The failed group stays committed (a commit cannot be taken back) and visible to reads, but the disk
 * may not hold it, and after a failed `fdatasync` Linux may have dropped the pages it could not
 * write and report the next flush a success: no later flush can say what is on disk. A write
 * answered now could be one that replays the failed group's answer (an Idempotency-Key retry), a
 * 2xx for something perhaps lost; so nothing is answered until a restart, as PostgreSQL stops on a
 * failed flush of its log.
 */
export class FlushFailed extends Error {
  constructor(cause: unknown) {
    super('a flush of the write-ahead log failed: writes are refused until a restart', { cause });
    this.name = 'FlushFailed';
  }
}

/** Every write of `group` refused with `error`: none of it is acknowledged. */
function rejectAll(group: readonly Pending[], error: unknown): void {
  for (const item of group) item.reject(error);
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function';

/**
 * Group commit. Every write a client is answered for runs through `run()`: the writes queued
 * during one turn of the event loop run together in one transaction, and each is answered once
 * that transaction has committed. With `synchronous=FULL` the commit returns only after the WAL
 * is flushed to disk, so one flush serves the whole group; while it runs, new requests wait in
 * the socket buffers and form the next group.
 *
 * A write is a function of the connection alone. Ingest writes are synchronous; a service's
 * transaction is an async function whose statements all run synchronously (better-sqlite3), so
 * awaiting it only turns microtasks and never lets another group start.
 *
 * A write that throws must not take the others down: when one does, the group runs again with
 * each write in its own savepoint, and only the failing one is rejected.
 */
export class GroupCommit {
  readonly #db: Db;
  readonly #statements: Record<
    'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'undo',
    { run(): unknown }
  >;
  /** Flushes the log after COMMIT (`wal-sync.ts`); without it, COMMIT flushes or not. */
  readonly #durable: Flusher | undefined;
  readonly #listeners: (() => (() => void) | undefined | void)[] = [];
  /** Groups committed and not yet answered (waiting for their flush). */
  readonly #flushing = new Set<Promise<void>>();
  readonly #beforeCommit: (() => void)[] = [];
  /** Rows this connection has changed since it opened (`total_changes()`), after the last commit. */
  readonly #totalChanges: { get(): unknown };
  #changesCommitted: unknown;
  #queue: Pending[] = [];
  #scheduled = false;
  #running: Promise<void> | undefined;
  /** Set by the first flush that failed: every write since is refused with it. */
  #failed: FlushFailed | undefined;
  readonly #failureListeners: ((failure: FlushFailed) => void)[] = [];

  /**
   * With `durable` (on a connection at `synchronous=NORMAL`, whose COMMIT does not flush), each
   * group's writes are answered once the log is flushed after its commit: at once when `durable`
   * flushed it here, on a fast disk; else once `durable.sync()` has resolved, the event loop free
   * meanwhile (the writes that arrive during the flush form the next group, committed after it).
   * Either way the log is then on disk, as FULL would have made it inside COMMIT.
   */
  constructor(db: Db, durable?: Flusher) {
    this.#db = db;
    this.#durable = durable;
    this.#statements = {
      begin: db.prepare('BEGIN'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT one_write'),
      release: db.prepare('RELEASE one_write'),
      undo: db.prepare('ROLLBACK TO one_write'),
    };
    this.#totalChanges = db.prepare('SELECT total_changes()').pluck();
    this.#changesCommitted = this.#totalChanges.get();
  }

  /** Runs `work` in the next group transaction; resolves with its result once that committed. */
  run<T>(work: () => T | Promise<T>): Promise<T> {
    if (this.#failed) return Promise.reject(this.#failed);
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  /** Commits what is queued now, instead of at the end of this loop turn (before closing). */
  async drain(): Promise<void> {
    await this.#running;
    if (this.#queue.length > 0) await this.#flush();
    await Promise.allSettled(this.#flushing);
  }

  /**
   * `listener` runs after each group commit, before the next group runs. What it returns, if
   * anything, runs once that group is durable, as its writes are answered (the outbox worker wakes
   * up that way: nothing is sent for a write that a power cut could still take back).
   */
  onCommit(listener: () => (() => void) | undefined | void): void {
    this.#listeners.push(listener);
  }

  /** `listener` runs once, when a flush fails (from then on every write is refused). */
  onFlushFailed(listener: (failure: FlushFailed) => void): void {
    this.#failureListeners.push(listener);
  }

  /**
   * Resolves once every group committed so far is on disk; rejects once a flush has failed. What
   * is read right after (in the same microtask) is durable: a group commits only in a later turn.
   */
  async flushed(): Promise<void> {
    while (this.#running || this.#flushing.size > 0) {
      await this.#running;
      await Promise.allSettled(this.#flushing);
    }
    if (this.#failed) throw this.#failed;
  }

  /** The failed flush that stopped every write, if one has. */
  get failed(): FlushFailed | undefined {
    return this.#failed;
  }

  /**
   * `work` runs inside each group's transaction, after its writes and before its commit (the
   * statistics cells are folded from the group's records so). If it throws, the group fails.
   */
  beforeCommit(work: () => void): void {
    this.#beforeCommit.push(work);
  }

  #schedule(): void {
    if (this.#scheduled || this.#running) return;
    // While a group's log is being flushed, the writes that arrive wait for its end and then
    // commit as one group: committed meanwhile they would form several small groups, each
    // writing its own pages to the log, all waiting for the same next flush. Measured: less CPU
    // per request and more requests per second (BENCHMARKS.md, issue 31); the event loop still
    // parses requests and serves reads during the flush.
    if (this.#flushing.size > 0) return;
    this.#scheduled = true;
    // After this loop turn's I/O callbacks: every request parsed in it joins the group.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  #flush(): Promise<void> {
    const group = this.#queue;
    this.#queue = [];
    this.#running = this.#commit(group).finally(() => {
      this.#running = undefined;
      if (this.#queue.length > 0) this.#schedule();
    });
    return this.#running;
  }

  async #commit(group: Pending[]): Promise<void> {
    // Queued before a flush failed: refused like every write since.
    if (this.#failed) {
      rejectAll(group, this.#failed);
      return;
    }
    let outcomes: Outcome[];
    try {
      try {
        outcomes = await this.#runGroup(group, false);
      } catch {
        outcomes = await this.#runGroup(group, true);
      }
    } catch (error) {
      // The commit itself failed (disk full, I/O error): nothing of the group is stored.
      rejectAll(group, error);
      return;
    }
    const whenDurable = this.#listeners.map((listener) => listener());
    const answer = () => {
      // A flush failed since this group committed (a group `drain()` committed beside one): its
      // own flush came after a failed one and says nothing.
      if (this.#failed) {
        rejectAll(group, this.#failed);
        return;
      }
      group.forEach((item, i) => {
        const outcome = outcomes[i] as Outcome;
        if (outcome.ok) item.resolve(outcome.value);
        else item.reject(outcome.error);
      });
      for (const then of whenDurable) then?.();
    };
    // A group that changed no row (reads in a transaction, background work that found nothing
    // to do) wrote nothing to the log: there is nothing to flush. The count covers INSERT, UPDATE
    // and DELETE, triggers included: the only statements a group runs to change data.
    const changes = this.#totalChanges.get();
    const wrote = changes !== this.#changesCommitted;
    this.#changesCommitted = changes;
    if (this.#durable === undefined || !wrote) {
      answer();
      return;
    }
    // Committed, but not known to be on disk: none of it is acknowledged, nor anything after.
    const notDurable = (error: unknown) => rejectAll(group, this.#failedWith(error));
    let flushedHere: boolean;
    try {
      flushedHere = this.#durable.flushHere();
    } catch (error) {
      notDurable(error);
      return;
    }
    if (flushedHere) {
      answer();
      return;
    }
    // The next group may run while this one's log is flushed; this one is answered after.
    const flushing: Promise<void> = this.#durable.sync().then(answer, notDurable);
    this.#flushing.add(flushing);
    void flushing.finally(() => {
      this.#flushing.delete(flushing);
      if (this.#queue.length > 0) this.#schedule();
    });
  }

  #failedWith(error: unknown): FlushFailed {
    if (this.#failed) return this.#failed;
    const failure = new FlushFailed(error);
    this.#failed = failure;
    for (const listener of this.#failureListeners) listener(failure);
    return failure;
  }

  /** One transaction over the group; with `isolate`, each write in a savepoint of its own. */
  async #runGroup(group: Pending[], isolate: boolean): Promise<Outcome[]> {
    const s = this.#statements;
    s.begin.run();
    try {
      const outcomes: Outcome[] = [];
      for (const item of group) {
        if (isolate) s.savepoint.run();
        try {
          let value = item.work();
          if (isThenable(value)) value = await value;
          if (isolate) s.release.run();
          outcomes.push({ ok: true, value });
        } catch (error) {
          if (!isolate) throw error;
          s.undo.run();
          s.release.run();
          outcomes.push({ ok: false, error });
        }
      }
      for (const work of this.#beforeCommit) work();
      s.commit.run();
      return outcomes;
    } catch (error) {
      // SQLite may already have rolled back by itself (some I/O errors do).
      if (this.#db.inTransaction) s.rollback.run();
      throw error;
    }
  }
}
