import { performance } from 'node:perf_hooks';
import type { Storage } from '../../storage/storage.js';
import type { Logger } from '../logger.js';
import { FIRST_BATCH_RECORDS, nextBatchRecords } from './batch-size.js';
import { rebuildStaleChangePoints } from './change-point-update.js';
import { judgeBatch } from './judging.js';
import { reevaluateBatch } from './reevaluation.js';

/** Records re-judged per transaction (re-evaluation reads more per record than judging). */
const REEVALUATE_BATCH = 100;
/** After a record is stored, judging starts this much later: a burst of ingest goes first. */
const START_DELAY_MS = 20;
/** Also looks this often (records stored by another replica, or left by a failure). */
const POLL_MS = 1000;
/**
 * The share of the event loop that background judging takes while the server is busy with other
 * work: each batch is then followed by a pause 19 times its length. Judging a record costs
 * several times storing it (BENCHMARKS.md, issue 23), so judging at full speed beside a burst of
 * ingest took a quarter of its throughput on SQLite, and on PostgreSQL (where it kept up with the
 * burst, batch after short batch) a quarter as well (BENCHMARKS.md, issue 31); paced so, it takes
 * at most this share, and the burst's records are judged once it ends. A batch's length is its
 * time on the event loop on SQLite (which it holds) and its wall time on PostgreSQL (where its
 * statements' waits let other requests run, and its own time on the loop cannot be told from
 * theirs). Reads that show verdicts (`catchUp`) never wait for a pause.
 */
export const BUSY_SHARE = 0.05;
/** The event loop counts as busy when other work used more than this share of a pause. */
export const BUSY_UTILIZATION = 0.5;
/**
 * A busy pause is taken in slices of this length, each followed by a look at the loop: the pause
 * ends with the first slice in which other work did not keep it busy, so that a long pause (after
 * a long batch: a wide record, a slow disk, a PostgreSQL batch's round trips) does not leave the
 * backlog waiting once the burst that made it has ended.
 */
const SLICE_MS = 100;
/** The longest pause, however long the batch: judging of a server busy without end still goes on. */
const MAX_PAUSE_MS = 30_000;
/** A quiet server's pause between batches, in which other work waiting would show. */
const PROBE_MS = 1;
/**
 * The shortest span busy-ness is judged over: a probe of PROBE_MS that took one timer or garbage
 * collection of a millisecond or two is not a busy server.
 */
const WINDOW_MS = 4;

/**
 * Judges stored metric records off the request path (an ingest's 2xx means stored, not judged):
 * woken after each store, it works through what is pending a batch at a time, yielding between
 * batches so that requests are served in between; while other work keeps the event loop busy it
 * pauses long enough to keep to BUSY_SHARE (a burst of ingest is judged after it, at full speed).
 * One batch runs at a time in the whole deployment (a storage lock). Reads that show verdicts call
 * `catchUp()` first, so what they show includes every record stored before them.
 */
export class JudgingWorker {
  #timer: NodeJS.Timeout | undefined;
  #poll: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  /** A wake-up came while a drain was running: look again when it ends. */
  #again = false;
  /** Records the next batch takes: fewer when records carry many values (batch-size.ts). */
  #batch = FIRST_BATCH_RECORDS;
  /** Imports running in this process: background judging waits for them (`during`). */
  #held = 0;
  /** `catchUp` calls waiting: while any does, batches follow each other without a pause. */
  #waiting = 0;
  /**
   * What background judging has done since start: its batches' time on the event loop, the
   * records they judged, and the pauses it took for a busy server (what a test of the pacing, or
   * an operator's question "is judging keeping up", reads).
   */
  readonly background = { ms: 0, batches: 0, records: 0, busyPauses: 0 };
  /**
   * Whether other work kept the event loop busy during the last pause: kept from one drain to the
   * next, since on PostgreSQL a busy server's records arrive while judging keeps up, each drain
   * one short batch followed by a pause.
   */
  #busy = false;
  /** Whether background judging is in a pause between batches (what a test of the pacing reads). */
  get pausing(): boolean {
    return this.#pause !== undefined;
  }

  /** The background drain's pause between batches, if it is in one: ended early by `catchUp`. */
  #pause: { timer: NodeJS.Timeout; end: () => void } | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.#stopped = false;
    this.#poll = setInterval(() => this.wake(0), POLL_MS);
    this.#poll.unref();
    this.wake(0);
  }

  /**
   * Runs `work` (an import of back-dated records) with background judging paused: judging the
   * imported records one batch after another between the import's own chunks took the event
   * loop's time from it (most of an import's wall time on SQLite), when judging them all after
   * it costs the same. Reads that show verdicts still wait for them (`catchUp` judges at once).
   */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.#held += 1;
    try {
      return await work();
    } finally {
      this.#held -= 1;
      if (this.#held === 0) this.wake(0);
    }
  }

  /** Some record was stored: judge it soon. */
  wake(delay = START_DELAY_MS): void {
    if (this.#running) this.#again = true;
    if (this.#stopped || this.#held > 0 || this.#timer || this.#running) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#drain(true);
    }, delay);
  }

  /** Resolves once every record stored before the call is judged. */
  async catchUp(): Promise<void> {
    this.#waiting += 1;
    this.#endPause();
    try {
      await this.#running;
      await this.#drain(false);
    } finally {
      this.#waiting -= 1;
    }
  }

  /** The catch-up that bounded waits share (`catchUpWithin`), while it runs. */
  #shared: Promise<void> | undefined;

  /**
   * Waits for `catchUp()` at most `ms` (pages: they show what is judged rather than wait for the
   * whole deployment's backlog). True: every record stored before the call is judged. False: the
   * time ran out, or judging failed (it is logged and retried at the next poll); the catch-up goes
   * on regardless, since giving up on it must not leave the backlog to the background pacing.
   * Waits that overlap share one catch-up: a page loaded again while it drains joins it rather
   * than queueing a drain of its own behind it.
   */
  async catchUpWithin(ms: number): Promise<boolean> {
    if (this.#shared === undefined) {
      const shared: Promise<void> = this.catchUp().finally(() => {
        if (this.#shared === shared) this.#shared = undefined;
      });
      // Nobody may be waiting when it fails: not an unhandled rejection.
      shared.catch(() => undefined);
      this.#shared = shared;
    }
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([
        this.#shared.then(
          () => true,
          () => false,
        ),
        expired,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#poll);
    this.#endPause();
    await this.#running;
  }

  #endPause(): void {
    const pause = this.#pause;
    if (pause === undefined) return;
    this.#pause = undefined;
    clearTimeout(pause.timer);
    pause.end();
  }

  /**
   * After a background batch: a pause of PROBE_MS on a quiet server, or one that keeps judging to
   * BUSY_SHARE (of the event loop on SQLite, of the time on PostgreSQL) while other work keeps the
   * loop busy, slice by slice. Notes whether the server was busy at its end.
   */
  async #yield(batchMs: number): Promise<void> {
    const interrupted = () => this.#waiting > 0 || this.#stopped;
    if (interrupted()) {
      // Requests that arrived meanwhile go first; a read waits for the rest.
      await new Promise((resolve) => setImmediate(resolve));
      return;
    }
    // A probe that finds the server busy begins the pause for the batch just done: on PostgreSQL
    // the next may take seconds, and a pause after it would come too late.
    if (!this.#busy) this.#busy = await this.#sleep(PROBE_MS);
    if (!this.#busy || interrupted()) return;
    this.background.busyPauses += 1;
    let left = Math.min((batchMs * (1 - BUSY_SHARE)) / BUSY_SHARE, MAX_PAUSE_MS);
    while (left > 0 && this.#busy && !interrupted()) {
      const slice = Math.min(left, SLICE_MS);
      this.#busy = await this.#sleep(slice);
      left -= slice;
    }
  }

  /** Sleeps `ms` (ended early by `catchUp` or `stop`); whether other work kept the loop busy. */
  async #sleep(ms: number): Promise<boolean> {
    const before = performance.eventLoopUtilization();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#pause = undefined;
        resolve();
      }, ms);
      this.#pause = { timer, end: resolve };
    });
    // Other work's time on the loop against the pause asked for, not against the idle time
    // measured: a timer already due when the loop gets to it shows no idle time at all.
    const others = performance.eventLoopUtilization(before).active;
    return others > BUSY_UTILIZATION * Math.max(ms, WINDOW_MS);
  }

  /** One turn of background work: a batch of a queued re-evaluation, else of a change-point rebuild. */
  async #reevaluate(): Promise<number> {
    try {
      return await this.storage.lock('verdicts', () =>
        this.storage.transaction(
          async (tx) =>
            (await reevaluateBatch(tx, REEVALUATE_BATCH)) || (await rebuildStaleChangePoints(tx)),
        ),
      );
    } catch (error) {
      // Retried at the next poll.
      this.log.error({ err: error }, 're-evaluation failed');
      return 0;
    }
  }

  #drain(background: boolean): Promise<void> {
    const run = (async () => {
      await this.#running;
      for (;;) {
        if (background && this.#stopped) return;
        // An import began: the rest waits for its end (which wakes the worker).
        if (background && this.#held > 0) return;
        const limit = this.#batch;
        let judged: { records: number; values: number; ms?: number };
        // Once the lock is held: waiting for another process's batch takes nothing from this one.
        let started = 0;
        try {
          judged = await this.storage.lock('verdicts', async () => {
            started = performance.now();
            // On SQLite, the batch's time on the event loop: inside its transaction, which runs
            // synchronously (what other requests wait for; outside it, the wait for the group
            // commit's flush let other requests run and counted their time too). On PostgreSQL
            // its time on the loop cannot be told from other requests': none is given.
            let inside = 0;
            const done = await this.storage.transaction(async (tx) => {
              const started = performance.now();
              try {
                return await judgeBatch(tx, limit);
              } finally {
                inside += performance.now() - started;
              }
            });
            return this.storage.transactionsHoldTheLoop ? { ...done, ms: inside } : done;
          });
        } catch (error) {
          // Retried at the next poll; a read that waits for it sees the error.
          this.log.error({ err: error }, 'judging failed');
          if (background) return;
          throw error;
        }
        // Sized by its time on the event loop only where a batch holds it (SQLite). On
        // PostgreSQL that time, once measured around the batch's awaits, counted other requests'
        // too: batches shrank to a record or two beside ingest, and each batch's fixed statements
        // (its lock, its project's settings, its change points) were paid per record.
        if (judged.records > 0) this.#batch = nextBatchRecords(judged);
        // What the pacing counts (BUSY_SHARE): on PostgreSQL the batch's wall time.
        const paced = judged.ms ?? performance.now() - started;
        if (background) {
          this.background.ms += paced;
          this.background.batches += 1;
          this.background.records += judged.records;
        }
        // A batch shorter than it asked for: nothing more was pending.
        if (judged.records < limit) {
          // Caught up: one batch of a queued re-evaluation or change-point rebuild, in the
          // background only (reads that wait for catchUp never wait for one), then a wake-up
          // for the next.
          if (background && !this.#stopped && (await this.#reevaluate()) > 0) this.#again = true;
          // On PostgreSQL a busy server's records are judged as they arrive, each drain one short
          // batch: paced as well, or judging keeps up with a burst at its expense. On SQLite such
          // a batch is a few records and the next drain waits START_DELAY_MS anyway.
          if (background && !this.storage.transactionsHoldTheLoop) await this.#yield(paced);
          return;
        }
        if (background) await this.#yield(paced);
        // Requests that arrived meanwhile go first.
        else await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const tracked = run.finally(() => {
      if (this.#running !== settled) return;
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
    const settled = tracked.catch(() => undefined);
    this.#running = settled;
    return tracked;
  }
}
