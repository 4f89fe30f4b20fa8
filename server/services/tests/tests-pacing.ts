import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** The event loop's next turn, after the I/O it has pending (new requests among it). */
const heard = () => new Promise((resolve) => setImmediate(resolve));

/** A waiting batch goes once no other request is in flight and none began or ended this long. */
export const QUIET_MS = 20;
/**
 * While other requests keep coming, a batch waits up to this many times the previous batch's
 * store (its cases' identities included): under a steady flood of other requests, storing tests
 * then takes about a seventeenth of the server's time, and the body's parse and validation
 * (before the wait; about a seventh of a store on SQLite, by a CPU profile) keep the whole below
 * a tenth.
 */
export const WAIT_FACTOR = 16;
/**
 * The longest wait, from the batch's arrival: the reporter gives an attempt 10 s by default
 * (`timeout-seconds`), which leaves 4 s for the store and the batches queued before it.
 */
export const MAX_WAIT_MS = 6_000;

/**
 * Test results give way to other requests (issue 25: storing a run's tests must not slow other
 * projects' ingest by more than 10 %). A batch of 5,000 cases holds the event loop for a few
 * hundred milliseconds on SQLite (its statements run synchronously), and a reporter sends the
 * next one as soon as the last is answered: at full speed, a 100,000-case run took three
 * quarters of another project's E7 throughput while it lasted (BENCHMARKS.md, "Tests beside
 * other projects' ingest"). So batches are stored one at a time, and each first waits for a lull:
 * no other request in flight and none begun or ended for QUIET_MS (in flight, not only arriving:
 * a burst's clients all wait for the same log flush, and the server hears nothing from them for
 * that long), at most WAIT_FACTOR times the previous batch's store and never more than
 * MAX_WAIT_MS. A server with nothing else to do stores them at once. The HTTP layer calls
 * `began()` and `ended()` for every request that is not a tests batch.
 */
export class TestsPacing {
  #inFlight = 0;
  #lastOther = Number.NEGATIVE_INFINITY;
  #lastStoreMs = 0;
  #queue: Promise<unknown> = Promise.resolve();
  /** What pacing has done (tests read it): batches stored, how many of them waited, for how long. */
  readonly stats = { batches: 0, waited: 0, waitedMs: 0 };

  /** Another request arrived. */
  began(): void {
    this.#inFlight += 1;
    this.#lastOther = performance.now();
  }

  /** Another request was answered (or its connection closed). */
  ended(): void {
    this.#inFlight -= 1;
    this.#lastOther = performance.now();
  }

  /** Runs `store` in its turn: after the batches before it, and after a lull or its wait. */
  run<T>(store: () => Promise<T>): Promise<T> {
    // The wait counts from here: a batch queued behind others has waited that long already, and
    // its answer must come within the reporter's timeout all the same.
    const arrived = performance.now();
    const turn = this.#queue.then(() => this.#paced(store, arrived));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #paced<T>(store: () => Promise<T>, arrived: number): Promise<T> {
    // Requests that arrived while this batch's body was parsed (a synchronous stretch of tens of
    // milliseconds, during which nothing else could even be heard) are heard first.
    await heard();
    const deadline = arrived + Math.min(this.#lastStoreMs * WAIT_FACTOR, MAX_WAIT_MS);
    let slept = false;
    for (;;) {
      const now = performance.now();
      if (now >= deadline) break;
      if (this.#inFlight <= 0 && now >= this.#lastOther + QUIET_MS) break;
      const quietAt = this.#inFlight > 0 ? now + QUIET_MS : this.#lastOther + QUIET_MS;
      await sleep(Math.min(quietAt, deadline) - now);
      // A timer runs before the loop reads its sockets: what arrived meanwhile is heard first.
      await heard();
      slept = true;
    }
    const started = performance.now();
    if (slept) {
      this.stats.waited += 1;
      this.stats.waitedMs += started - arrived;
    }
    try {
      return await store();
    } finally {
      this.#lastStoreMs = performance.now() - started;
      this.stats.batches += 1;
    }
  }
}
