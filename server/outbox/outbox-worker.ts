import { DeliveryError } from '../outbound/delivery-error.js';
import type { Logger } from '../services/logger.js';
import type { DueJob, OutboxRepository } from '../storage/storage.js';
import type { OutboxJob } from './outbox-jobs.js';
import { type RetryPolicy, retryDelayMs } from './retry-schedule.js';

export interface WorkerOptions {
  outbox: OutboxRepository;
  /**
   * Carries out a job; `id` is its row's, which grows with each job queued and is the same on
   * each of its attempts (a generic webhook's report is numbered by it).
   */
  execute: (job: OutboxJob, id: number) => Promise<void>;
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
  /**
   * Jobs of one lane with the same key are states of one thing (a run's message): a job with a
   * later one of its key waiting behind it in its lane is not sent, and counts as delivered.
   */
  coalesceKey?: (job: OutboxJob) => string | undefined;
}

/** Even with nothing due, look again this often (a clock change, a job from another process). */
const IDLE_POLL_MS = 60_000;

/** While outcomes cannot be recorded, they are tried again this often. */
const RECORD_AGAIN_MS = 1_000;

/** What an attempt came to, as the outbox records it. */
type Outcome =
  | { kind: 'delivered'; attempts: number }
  | { kind: 'failed'; attempts: number; error: string }
  | { kind: 'retry'; attempts: number; at: number; error: string };

/** A claimed job, parsed (undefined when its payload is unreadable), waiting in its lane. */
interface Claimed {
  row: DueJob;
  job: OutboxJob | undefined;
  lane: string;
  /** A later job of its lane has the same coalescing key: it is not sent. */
  superseded?: boolean;
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
 *
 * When an outcome cannot be recorded (a full disk, the database away), the worker pauses: it
 * keeps that job claimed with its outcome in memory, sends nothing more, and tries to record the
 * outcomes it holds every second; once they are recorded it resumes. So a job is never sent
 * again because its outcome was lost, as long as this process lives; a process that dies while
 * paused sends again, after its restart, at most the deliveries that were in flight when it
 * paused.
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
  /** Outcomes known but not yet recorded, by job; while there are any, the worker is paused. */
  readonly #unrecorded = new Map<number, Outcome>();
  #recordTimer: NodeJS.Timeout | undefined;

  constructor(options: WorkerOptions) {
    this.#options = {
      concurrency: 8,
      window: 256,
      laneOf: () => undefined,
      readyAt: () => 0,
      coalesceKey: () => undefined,
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
    clearTimeout(this.#recordTimer);
    await this.#looking;
    for (const queue of this.#lanes.values()) {
      for (const { row } of queue) await this.#release(row.id);
    }
    this.#lanes.clear();
    await Promise.allSettled(this.#inFlight.values());
    // A last try: what stays unrecorded is sent again after the next start.
    await this.#recordHeld();
  }

  /** Whether outcomes wait to be recorded: nothing is claimed or sent meanwhile. */
  get paused(): boolean {
    return this.#unrecorded.size > 0;
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
    // Paused: resuming looks again.
    if (this.paused) return;
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
    if (!this.#running || this.paused) return;
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
      next.superseded = this.#superseded(next, queue);
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

  /** Whether a job waiting behind it in its lane has its coalescing key. */
  #superseded(claimed: Claimed, rest: readonly Claimed[]): boolean {
    const key = claimed.job && this.#options.coalesceKey(claimed.job);
    if (key === undefined) return false;
    return rest.some((later) => later.job && this.#options.coalesceKey(later.job) === key);
  }

  async #deliver({ row, job, superseded }: Claimed): Promise<void> {
    let recorded = true;
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
      // Paused since it was started: not sent now (it stays pending).
      if (!held || this.paused) return;
      const outcome: Outcome = superseded
        ? { kind: 'delivered', attempts: row.attempts }
        : await this.#attempt(row, job);
      recorded = await this.#record(row.id, outcome);
    } catch (error) {
      this.#options.log.error({ job: row.id, err: error }, 'outbox delivery failed');
    } finally {
      // An outcome not recorded keeps its claim: the job must not be picked, and sent, again.
      if (recorded) await this.#release(row.id);
    }
  }

  /** Writes an outcome; when it cannot, keeps it and pauses (false). */
  async #record(id: number, outcome: Outcome): Promise<boolean> {
    try {
      await this.#write(id, outcome);
      return true;
    } catch (error) {
      if (!this.paused) {
        this.#options.log.error(
          { job: id, err: error },
          'could not record an outbox outcome: no notification is sent until outcomes can be recorded again',
        );
      }
      this.#unrecorded.set(id, outcome);
      clearTimeout(this.#recordTimer);
      this.#recordTimer = setTimeout(() => void this.#resume(), RECORD_AGAIN_MS).unref();
      return false;
    }
  }

  #write(id: number, outcome: Outcome): Promise<void> {
    const { outbox } = this.#options;
    if (outcome.kind === 'delivered') return outbox.delivered(id, outcome.attempts);
    if (outcome.kind === 'failed') return outbox.failed(id, outcome.attempts, outcome.error);
    return outbox.retryAt(id, outcome.attempts, outcome.at, outcome.error);
  }

  /** Records the outcomes held, in order, each then released; true when none is left. */
  async #recordHeld(): Promise<boolean> {
    for (const [id, outcome] of this.#unrecorded) {
      try {
        await this.#write(id, outcome);
      } catch {
        return false;
      }
      this.#unrecorded.delete(id);
      await this.#release(id);
    }
    return true;
  }

  /** While paused: records what it holds, then resumes; else tries again shortly. */
  async #resume(): Promise<void> {
    if (!(await this.#recordHeld())) {
      if (this.#running) {
        this.#recordTimer = setTimeout(() => void this.#resume(), RECORD_AGAIN_MS).unref();
      }
      return;
    }
    this.#options.log.info({}, 'outbox outcomes recorded again: delivering');
    this.#pump();
    this.wake();
  }

  /** Hands a claim back; when the database cannot be told, the claim runs out by itself. */
  async #release(id: number): Promise<void> {
    try {
      await this.#options.outbox.release(id);
    } catch (error) {
      this.#options.log.error({ job: id, err: error }, 'could not release an outbox claim');
    }
  }

  /** Sends a job once; what came of it, to be recorded. */
  async #attempt(row: DueJob, job: OutboxJob | undefined): Promise<Outcome> {
    const { execute, policy, log } = this.#options;
    const attempts = row.attempts + 1;
    if (job === undefined) return { kind: 'failed', attempts, error: 'unreadable job' };
    const context = { job: row.id, kind: job.kind, attempt: attempts };
    let error: DeliveryError | undefined;
    try {
      await execute(job, row.id);
    } catch (caught) {
      if (caught instanceof DeliveryError) {
        error = caught;
      } else {
        log.error({ ...context, err: caught }, 'outbox job crashed');
        error = new DeliveryError('unexpected error', true);
      }
    }
    if (error === undefined) {
      log.info(context, 'outbox job delivered');
      return { kind: 'delivered', attempts };
    }
    if (!error.retryable || attempts >= policy.maxAttempts) {
      log.warn({ ...context, error: error.message }, 'outbox job given up');
      return { kind: 'failed', attempts, error: error.message };
    }
    const delay = retryDelayMs(attempts, policy, error.retryAfterMs);
    log.info({ ...context, error: error.message, retryInMs: delay }, 'outbox job will be retried');
    return { kind: 'retry', attempts, at: Date.now() + delay, error: error.message };
  }
}
