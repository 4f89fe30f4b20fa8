import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** The event loop's next turn, after the I/O it has pending (new requests among it). */
const heard = () => new Promise((resolve) => setImmediate(resolve));

/** A waiting batch goes once no other request is in flight and none began or ended this long. */
export const QUIET_MS = 20;
/**
 * While other requests keep coming, a batch waits up to this many times the previous batch's
 * cost (its body's read, parse and validation, its cases' identities and its store): under a
 * steady flood of other requests, tests then take about a seventeenth of the server's time.
 */
export const WAIT_FACTOR = 16;
/**
 * The longest wait, from the batch's arrival: the reporter gives an attempt 10 s by default
 * (`timeout-seconds`), which leaves 4 s for the store and the batches queued before it.
 */
export const MAX_WAIT_MS = 6_000;
/**
 * Work behind the batches (`lull`) waits this long after a tests batch was answered: a reporter
 * sends the next one as soon as it has it encoded.
 */
export const BATCH_QUIET_MS = 250;

/**
 * Test results give way to other requests (issue 25: storing a run's tests must not slow other
 * projects' ingest by more than 10 %). A batch of 5,000 cases holds the event loop for a few
 * hundred milliseconds on SQLite (its statements run synchronously), and a reporter sends the
 * next one as soon as the last is answered: at full speed, a 100,000-case run took three
 * quarters of another project's E7 throughput while it lasted (BENCHMARKS.md, "Tests beside
 * other projects' ingest"). So batches are stored one at a time, and each first waits for a lull:
 * no other request in flight and none begun or ended for QUIET_MS (in flight, not only arriving:
 * a burst's clients all wait for the same log flush, and the server hears nothing from them for
 * that long), at most WAIT_FACTOR times the previous batch's cost and never more than
 * MAX_WAIT_MS. A server with nothing else to do stores them at once. The HTTP layer calls
 * `began()` and `ended()` for every request, telling tests batches apart (`batch`). The upkeep
 * of the batches' summaries and day rows (test-upkeep-worker.ts) comes after everything:
 * `lull()` waits for no request of any kind.
 */
export class TestsPacing {
  #inFlight = 0;
  #lastOther = Number.NEGATIVE_INFINITY;
  /** Tests batches: in flight (from their first byte), queued here, the last's start or end. */
  #batchesInFlight = 0;
  #batchesQueued = 0;
  #lastBatch = Number.NEGATIVE_INFINITY;
  #lastCostMs = 0;
  #queue: Promise<unknown> = Promise.resolve();
  /** What pacing has done (tests read it): batches stored, how many of them waited, for how long. */
  readonly stats = { batches: 0, waited: 0, waitedMs: 0 };

  /** A request arrived (`batch`: a tests batch). */
  began(batch = false): void {
    if (batch) {
      this.#batchesInFlight += 1;
      this.#lastBatch = performance.now();
      return;
    }
    this.#inFlight += 1;
    this.#lastOther = performance.now();
  }

  /** A request was answered (or its connection closed). */
  ended(batch = false): void {
    if (batch) {
      this.#batchesInFlight -= 1;
      this.#lastBatch = performance.now();
      return;
    }
    this.#inFlight -= 1;
    this.#lastOther = performance.now();
  }

  /**
   * Resolves when work behind the batches may run (`signal` aborting ends the wait too): at a
   * lull of every request (none in flight, none begun or ended for QUIET_MS, and no tests batch
   * in flight, queued, or answered within BATCH_QUIET_MS: a reporter's next batch comes that
   * soon), else at `deadline` (performance.now() time) if no tests batch is what keeps it waiting
   * (batches go first), else at `deadline + MAX_WAIT_MS`.
   */
  async lull(deadline: number, signal?: AbortSignal): Promise<void> {
    const last = deadline + MAX_WAIT_MS;
    for (;;) {
      const now = performance.now();
      if (now >= last || signal?.aborted) return;
      const batches =
        this.#batchesInFlight > 0 ||
        this.#batchesQueued > 0 ||
        now < this.#lastBatch + BATCH_QUIET_MS;
      const others = this.#inFlight > 0 || now < this.#lastOther + QUIET_MS;
      if (!batches && (!others || now >= deadline)) return;
      const until = Math.min(now + QUIET_MS, batches ? last : deadline);
      await sleep(until - now, undefined, { signal }).catch(() => undefined);
      await heard();
    }
  }

  /**
   * Runs `store` in its turn: after the batches before it, and after a lull or its wait.
   * `preparedMs`: what the batch cost before it got here (its body read, parsed and validated),
   * counted with its store in the next batch's wait: once stores got cheaper (their upkeep moved
   * behind them), the unpaced parse was a third of a batch, and other projects kept only 0.85 of
   * their throughput (BENCHMARKS.md, issue 25).
   */
  run<T>(store: () => Promise<T>, preparedMs = 0): Promise<T> {
    // The wait counts from here: a batch queued behind others has waited that long already, and
    // its answer must come within the reporter's timeout all the same.
    const arrived = performance.now();
    this.#batchesQueued += 1;
    const turn = this.#queue
      .then(() => this.#paced(store, arrived, preparedMs))
      .finally(() => {
        this.#batchesQueued -= 1;
        this.#lastBatch = performance.now();
      });
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #paced<T>(store: () => Promise<T>, arrived: number, preparedMs: number): Promise<T> {
    // Requests that arrived while this batch's body was parsed (a synchronous stretch of tens of
    // milliseconds, during which nothing else could even be heard) are heard first.
    await heard();
    const deadline = arrived + Math.min(this.#lastCostMs * WAIT_FACTOR, MAX_WAIT_MS);
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
      this.#lastCostMs = performance.now() - started + preparedMs;
      this.stats.batches += 1;
    }
  }
}
