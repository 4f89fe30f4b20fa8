import { DeliveryError } from '../outbound/delivery-error.js';
import type { Logger } from '../services/logger.js';
import type { DueJob, OutboxRepository } from '../storage/storage.js';
import type { OutboxJob } from './outbox-jobs.js';
import { type RetryPolicy, retryDelayMs } from './retry-schedule.js';

export interface WorkerOptions {
  outbox: OutboxRepository;
  execute: (job: OutboxJob) => Promise<void>;
  policy: RetryPolicy;
  log: Logger;
  /** Deliveries in flight at once. */
  concurrency?: number;
}

/** Even with nothing due, look again this often (a clock change, a job from another process). */
const IDLE_POLL_MS = 60_000;

/**
 * Delivers outbox jobs in the server process: at once when a job is queued, and again at each
 * job's retry time. A job is claimed while it is delivered, and its outcome is written back
 * before the claim ends, so a job that was delivered is never sent again by our retries; a job in
 * flight when the process dies stays pending and is delivered after the next start (at least
 * once).
 */
export class OutboxWorker {
  readonly #options: Required<WorkerOptions>;
  readonly #inFlight = new Map<number, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #wakePending = false;
  #running = false;
  /** The look under way, if any. */
  #looking: Promise<void> | undefined;
  #lookAgain = false;

  constructor(options: WorkerOptions) {
    this.#options = { concurrency: 4, ...options };
  }

  start(): void {
    this.#running = true;
    this.wake();
  }

  /** Look for due jobs soon (coalesced). */
  wake(): void {
    if (!this.#running || this.#wakePending) return;
    this.#wakePending = true;
    setImmediate(() => {
      this.#wakePending = false;
      this.#poll();
    });
  }

  /** Stops picking jobs and waits for the deliveries in flight (each bounded by its timeout). */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#looking;
    await Promise.allSettled(this.#inFlight.values());
  }

  #poll(): void {
    if (!this.#running) return;
    // One look at a time: a wake during a look is answered by another look after it.
    if (this.#looking) {
      this.#lookAgain = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#looking = this.#look()
      .catch((error) => {
        this.#options.log.error({ err: error }, 'outbox poll failed; trying again shortly');
        this.#timer = setTimeout(() => this.wake(), 1_000).unref();
      })
      .finally(() => {
        this.#looking = undefined;
        if (this.#lookAgain) {
          this.#lookAgain = false;
          this.wake();
        }
      });
  }

  async #look(): Promise<void> {
    const { outbox, concurrency } = this.#options;
    const free = concurrency - this.#inFlight.size;
    if (free > 0) {
      for (const job of await outbox.claimDue(Date.now(), free)) {
        const delivery = this.#deliver(job).finally(() => {
          this.#inFlight.delete(job.id);
          this.wake();
        });
        this.#inFlight.set(job.id, delivery);
      }
    }
    // With every slot busy, the next finished delivery wakes us.
    if (this.#running && this.#inFlight.size < concurrency) {
      const next = await outbox.nextDueAt();
      const wait =
        next === undefined ? IDLE_POLL_MS : Math.min(Math.max(next - Date.now(), 0), IDLE_POLL_MS);
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.wake(), wait).unref();
    }
  }

  async #deliver(row: DueJob): Promise<void> {
    try {
      await this.#attempt(row);
    } catch (error) {
      // Only recording the outcome can fail here; the job stays pending and is tried again.
      this.#options.log.error({ job: row.id, err: error }, 'could not record an outbox outcome');
    } finally {
      await this.#options.outbox.release(row.id);
    }
  }

  async #attempt(row: DueJob): Promise<void> {
    const { outbox, execute, policy, log } = this.#options;
    const attempts = row.attempts + 1;
    let job: OutboxJob;
    try {
      job = JSON.parse(row.payload) as OutboxJob;
    } catch {
      await outbox.failed(row.id, attempts, 'unreadable job');
      return;
    }
    const context = { job: row.id, kind: job.kind, attempt: attempts };
    let error: DeliveryError | undefined;
    try {
      await execute(job);
    } catch (caught) {
      if (caught instanceof DeliveryError) {
        error = caught;
      } else {
        log.error({ ...context, err: caught }, 'outbox job crashed');
        error = new DeliveryError('unexpected error', true);
      }
    }
    if (error === undefined) {
      await outbox.delivered(row.id, attempts);
      log.info(context, 'outbox job delivered');
      return;
    }
    if (!error.retryable || attempts >= policy.maxAttempts) {
      await outbox.failed(row.id, attempts, error.message);
      log.warn({ ...context, error: error.message }, 'outbox job given up');
    } else {
      const delay = retryDelayMs(attempts, policy, error.retryAfterMs);
      await outbox.retryAt(row.id, attempts, Date.now() + delay, error.message);
      log.info(
        { ...context, error: error.message, retryInMs: delay },
        'outbox job will be retried',
      );
    }
  }
}
