import type { Db } from './database.js';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit. Every write a client is answered for runs through `run()`: the writes queued
 * during one turn of the event loop run together in one transaction, and each is answered once
 * that transaction has committed. With `synchronous=FULL` the commit returns only after the WAL
 * is flushed to disk, so one flush serves the whole group; while it runs, new requests wait in
 * the socket buffers and form the next group.
 *
 * A write that throws must not take the others down: when one does, the group runs again with
 * each write in its own savepoint, and only the failing one is rejected.
 */
export class Commits {
  readonly #runGroup: (group: Pending[], isolate: boolean) => Outcome[];
  readonly #listeners: (() => void)[] = [];
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(db: Db) {
    this.#runGroup = db.transaction((group: Pending[], isolate: boolean) =>
      group.map((item): Outcome => {
        if (!isolate) return { ok: true, value: item.work() };
        try {
          return { ok: true, value: db.transaction(item.work)() };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  }

  /** Runs `work` in the next group transaction; resolves with its result once that committed. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // After this loop turn's I/O callbacks: every request parsed in it joins the group.
        setImmediate(() => this.#commit());
      }
    });
  }

  /** Commits what is queued now, instead of at the end of this loop turn (before closing). */
  drain(): void {
    if (this.#queue.length > 0) this.#commit();
  }

  /** `listener` runs after each group commit (the outbox worker wakes up that way). */
  onCommit(listener: () => void): void {
    this.#listeners.push(listener);
  }

  #commit(): void {
    const group = this.#queue;
    this.#queue = [];
    this.#scheduled = false;
    let outcomes: Outcome[];
    try {
      outcomes = this.#group(group);
    } catch (error) {
      // The commit itself failed (disk full, I/O error): nothing of the group is stored.
      for (const item of group) item.reject(error);
      return;
    }
    group.forEach((item, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
    for (const listener of this.#listeners) listener();
  }

  #group(group: Pending[]): Outcome[] {
    try {
      return this.#runGroup(group, false);
    } catch {
      return this.#runGroup(group, true);
    }
  }
}
