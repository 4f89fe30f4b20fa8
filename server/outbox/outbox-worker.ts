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
  /** Deliveries in flight at once, over all lanes. */
  concurrency?: number;
  /** Jobs claimed at once: delivering, or waiting for their lane. */
  window?: number;
  /**
   * A job's lane (e.g. its webhook): a lane's jobs are delivered one at a time, in order, and
   * lanes never wait on each other. Undefined: a lane of its own.
   */
  laneOf?: (job: OutboxJob) => string | undefined;
  /** When a job may be sent (a service's rate limit, as it last stated it); 0 or past: now. */
  readyAt?: (job: OutboxJob) => number;
}

/** Even with nothing due, look again this often (a clock change, a job from another process). */
const IDLE_POLL_MS = 60_000;

/** A claimed job, parsed (undefined when its payload is unreadable), waiting in its lane. */
interface Claimed {
  row: DueJob;
  job: OutboxJob | undefined;
  lane: string;
}

/**
 * Delivers outbox jobs in the server process: at once when a job is queued, and again at each
 * job's retry time. A job is claimed while it is delivered, and its outcome is written back
 * before the claim ends, so a job that was delivered is never sent again by our retries; a job in
 * flight when the process dies stays pending and is delivered after the next start (at least
 * once: the window is from the service's acceptance to our commit of the outcome, one answer's
 * transit plus one group commit).
 *
 * Claimed jobs wait in lanes, one per webhook: a slow or rate-limited webhook holds up its own
 * lane only, and a lane whose service said its limit is used up (`readyAt`) waits until the reset
 * before its next job instead of being answered 429.
 */
export class OutboxWorker {
  readonly #options: Required<WorkerOptions>;
  readonly #inFlight = new Map<number, Promise<void>>();
  /** Claimed jobs not yet in flight, per lane, in order. */
  readonly #lanes = new Map<string, Claimed[]>();
  /** Lanes with a delivery in flight. */
  readonly #busy = new Set<string>();
  #claimedCount = 0;
  #timer: NodeJS.Timeout | undefined;
  /** Wakes the lanes waiting for a rate limit to reset. */
  #laneTimer: NodeJS.Timeout | undefined;
  #wakePending = false;
  #running = false;
  /** The look under way, if any. */
  #looking: Promise<void> | undefined;
  #lookAgain = false;

  constructor(options: WorkerOptions) {
    this.#options = {
      concurrency: 8,
      window: 256,
      laneOf: () => undefined,
      readyAt: () => 0,
      ...options,
    };
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

  /**
   * Stops picking jobs, hands back the claimed jobs not yet started (still pending, sent after
   * the next start) and waits for the deliveries in flight (each bounded by its timeout).
   */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    clearTimeout(this.#laneTimer);
    await this.#looking;
    for (const queue of this.#lanes.values()) {
      for (const { row } of queue) await this.#release(row.id);
    }
    this.#lanes.clear();
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
    const { outbox, window } = this.#options;
    const free = window - this.#claimedCount;
    if (free > 0) {
      for (const row of await outbox.claimDue(Date.now(), free)) this.#enqueue(row);
    }
    this.#pump();
    // With the window full, the next finished delivery wakes us.
    if (this.#running && this.#claimedCount < window) {
      const next = await outbox.nextDueAt();
      const wait =
        next === undefined ? IDLE_POLL_MS : Math.min(Math.max(next - Date.now(), 0), IDLE_POLL_MS);
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.wake(), wait).unref();
    }
  }

  #enqueue(row: DueJob): void {
    let job: OutboxJob | undefined;
    try {
      job = JSON.parse(row.payload) as OutboxJob;
    } catch {
      job = undefined;
    }
    const lane = (job && this.#options.laneOf(job)) ?? `job:${row.id}`;
    const queue = this.#lanes.get(lane);
    if (queue) queue.push({ row, job, lane });
    else this.#lanes.set(lane, [{ row, job, lane }]);
    this.#claimedCount++;
  }

  /** Starts the first job of every idle lane whose service is ready, up to the concurrency. */
  #pump(): void {
    if (!this.#running) return;
    const { concurrency, readyAt } = this.#options;
    const now = Date.now();
    let earliest = Number.POSITIVE_INFINITY;
    for (const [lane, queue] of this.#lanes) {
      if (this.#inFlight.size >= concurrency) break;
      const next = queue[0];
      if (this.#busy.has(lane) || next === undefined) continue;
      const at = next.job ? readyAt(next.job) : 0;
      if (at > now) {
        earliest = Math.min(earliest, at);
        continue;
      }
      queue.shift();
      if (queue.length === 0) this.#lanes.delete(lane);
      this.#busy.add(lane);
      const delivery = this.#deliver(next).finally(() => {
        this.#inFlight.delete(next.row.id);
        this.#busy.delete(lane);
        this.#claimedCount--;
        this.#pump();
        this.wake();
      });
      this.#inFlight.set(next.row.id, delivery);
    }
    if (earliest !== Number.POSITIVE_INFINITY) {
      clearTimeout(this.#laneTimer);
      this.#laneTimer = setTimeout(() => this.#pump(), earliest - now).unref();
    }
  }

  async #deliver({ row, job }: Claimed): Promise<void> {
    try {
      // A job may wait long in its lane: sent only while its claim still holds (with several
      // replicas, another may have taken it over meanwhile). When unsure, it is not sent.
      let held: boolean;
      try {
        held = await this.#options.outbox.renewClaim(row.id, Date.now());
      } catch (error) {
        this.#options.log.error({ job: row.id, err: error }, 'could not renew an outbox claim');
        held = false;
      }
      if (!held) return;
      await this.#attempt(row, job);
    } catch (error) {
      // Only recording the outcome can fail here; the job stays pending and is tried again.
      this.#options.log.error({ job: row.id, err: error }, 'could not record an outbox outcome');
    } finally {
      await this.#release(row.id);
    }
  }

  /** Hands a claim back; when the database cannot be told, the claim runs out by itself. */
  async #release(id: number): Promise<void> {
    try {
      await this.#options.outbox.release(id);
    } catch (error) {
      this.#options.log.error({ job: id, err: error }, 'could not release an outbox claim');
    }
  }

  async #attempt(row: DueJob, job: OutboxJob | undefined): Promise<void> {
    const { outbox, execute, policy, log } = this.#options;
    const attempts = row.attempts + 1;
    if (job === undefined) {
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
