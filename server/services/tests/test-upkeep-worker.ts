import { performance } from 'node:perf_hooks';
import type { Storage } from '../../storage/storage.js';
import type { Logger } from '../logger.js';
import { MAX_WAIT_MS, type TestsPacing, WAIT_FACTOR } from './tests-pacing.js';

/** What an upkeep is guessed to take before one was measured (a batch of 5,000 cases: ~100 ms). */
const FIRST_GUESS_MS = 100;
/** Also looks this often (upkeep left by a failure, or queued while the worker was stopped). */
const POLL_MS = 5_000;

/**
 * Applies the upkeep of stored test batches (their tests' summaries and day rows,
 * domain/tests/test-upkeep.ts) behind the batches: one entry at a time, at a lull of every
 * request (TestsPacing.lull), or after waiting WAIT_FACTOR times the last entry's time (under a
 * steady flood of requests the upkeep then takes about a seventeenth of the server, as batches
 * do). A run of 100,000 cases is acknowledged before its upkeep starts (issue 25's 5 s), and its
 * upkeep never stands between another project's requests and the event loop for long. Reads of
 * the summaries or days call `catchUp(projectId)` first, which applies that project's queue at
 * once. One entry is applied at a time in the whole deployment (the `test-upkeep` lock).
 */
export class TestUpkeepWorker {
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = true;
  #poll: NodeJS.Timeout | undefined;
  #abort = new AbortController();
  #lastMs = FIRST_GUESS_MS;
  /** What the worker has done: entries applied in the background (tests read it). */
  readonly stats = { background: 0 };

  constructor(
    private readonly storage: Storage,
    private readonly pacing: TestsPacing,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.#stopped = false;
    this.#abort = new AbortController();
    this.#poll = setInterval(() => this.wake(), POLL_MS);
    this.#poll.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#poll);
    this.#abort.abort();
    await this.#running;
  }

  /** A batch was stored: its upkeep is applied at the next lull. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    const running = this.#drain()
      .catch((error) => this.log.error({ err: error }, 'the tests upkeep failed'))
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
    this.#running = running;
  }

  /** Resolves once every batch of the project stored before the call has its upkeep applied. */
  async catchUp(projectId: string): Promise<void> {
    while (await this.storage.tests.upkeepPending(projectId)) {
      await this.#apply(projectId);
    }
  }

  #apply(projectId?: string): Promise<boolean> {
    return this.storage.lock('test-upkeep', () => this.storage.tests.applyUpkeep(projectId));
  }

  async #drain(): Promise<void> {
    while (!this.#stopped && (await this.storage.tests.upkeepPending())) {
      const waiting = performance.now();
      const deadline = waiting + Math.min(this.#lastMs * WAIT_FACTOR, MAX_WAIT_MS);
      await this.pacing.lull(deadline, this.#abort.signal);
      if (this.#stopped) return;
      const started = performance.now();
      if (!(await this.#apply())) return;
      this.#lastMs = performance.now() - started;
      this.stats.background += 1;
    }
  }
}
