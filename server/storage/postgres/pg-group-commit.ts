import postgres from 'postgres';
import type { Sql } from './pg-database.js';

interface Pending<Item, Result> {
  item: Item;
  resolve: (value: Result) => void;
  reject: (error: unknown) => void;
}

export interface PgGroupOptions<Item, Result> {
  /**
   * Writes a group through the pool with ONE statement, which PostgreSQL commits by itself before
   * it answers (so the group is one transaction, and committed once it resolves); one result per
   * item, in order. `slot` (below `concurrency`) is the group's own among those committing at once.
   */
  run: (pool: Sql, items: Item[], slot: number) => Promise<Result[]>;
  /** Items with the same key never share a group: the later waits for the next one. */
  keyOf: (item: Item) => string | undefined;
  /** Groups committing at once (each on a connection of its own). */
  concurrency?: number;
  /** Items in one group, at most. */
  maxGroup?: number;
}

/**
 * Group commit on PostgreSQL. Appends made through the pool during one turn of the event loop
 * (and while earlier groups are committing) are written together by one statement, a transaction
 * of its own, and each is answered once it has committed with `synchronous_commit = on` (set on
 * every connection of the pool: its WAL flushed to disk): one flush and one round trip serve the
 * whole group.
 *
 * When a group fails in the database (an error PostgreSQL reported: the statement is rolled
 * back for sure), its items run again one by one, each in a statement of its own, so one bad
 * append never takes the others down. When the connection fails instead, the outcome of the
 * commit is unknown: the whole group is rejected (running it again could store it twice).
 */
export class PgGroupCommit<Item, Result> {
  readonly #pool: Sql;
  readonly #options: Required<PgGroupOptions<Item, Result>>;
  #queue: Pending<Item, Result>[] = [];
  #scheduled = false;
  readonly #running = new Set<Promise<void>>();
  /** The slots of the groups not committing now. */
  #free: number[];

  constructor(pool: Sql, options: PgGroupOptions<Item, Result>) {
    this.#pool = pool;
    this.#options = { concurrency: 4, maxGroup: 1000, ...options };
    this.#free = Array.from({ length: this.#options.concurrency }, (_, slot) => slot);
  }

  /** Queues `item` for the next group; resolves with its result once that group committed. */
  run(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  /** Resolves once every item queued so far has committed (or failed). */
  async drain(): Promise<void> {
    while (this.#queue.length > 0 || this.#running.size > 0) {
      if (this.#queue.length > 0 && this.#running.size < this.#options.concurrency) this.#flush();
      await Promise.race(this.#running);
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#running.size >= this.#options.concurrency) return;
    this.#scheduled = true;
    // After this loop turn's I/O callbacks: every request parsed in it joins the group.
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#queue.length > 0 && this.#running.size < this.#options.concurrency) this.#flush();
    });
  }

  /** Takes the next group off the queue and commits it. */
  #flush(): void {
    const { keyOf, maxGroup } = this.#options;
    const group: Pending<Item, Result>[] = [];
    const later: Pending<Item, Result>[] = [];
    const keys = new Set<string>();
    for (const pending of this.#queue) {
      const key = keyOf(pending.item);
      if (group.length >= maxGroup || (key !== undefined && keys.has(key))) {
        later.push(pending);
        continue;
      }
      if (key !== undefined) keys.add(key);
      group.push(pending);
    }
    this.#queue = later;
    const slot = this.#free.pop() as number;
    const running = this.#commit(group, slot).finally(() => {
      this.#free.push(slot);
      this.#running.delete(running);
      if (this.#queue.length > 0) this.#schedule();
    });
    this.#running.add(running);
  }

  async #commit(group: Pending<Item, Result>[], slot: number): Promise<void> {
    try {
      const results = await this.#write(
        group.map((pending) => pending.item),
        slot,
      );
      for (const [i, pending] of group.entries()) pending.resolve(results[i] as Result);
    } catch (error) {
      if (!(error instanceof postgres.PostgresError) || group.length === 1) {
        for (const pending of group) pending.reject(error);
        return;
      }
      // One at a time: only the items that fail on their own are rejected.
      for (const pending of group) {
        try {
          const [result] = await this.#write([pending.item], slot);
          pending.resolve(result as Result);
        } catch (alone) {
          pending.reject(alone);
        }
      }
    }
  }

  #write(items: Item[], slot: number): Promise<Result[]> {
    return this.#options.run(this.#pool, items, slot);
  }
}
