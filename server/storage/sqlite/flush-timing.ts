/**
 * Where the group commit flushes the log (`wal-sync.ts`): on the event loop when this disk's
 * flushes are fast, in libuv's thread pool when they are slow.
 *
 * A flush on the event loop stops everything else for its length, but it needs no hand-off to a
 * thread and back, and the requests that arrive meanwhile form one group of all the waiting
 * connections instead of two alternating halves. On a disk whose `fdatasync` takes a third of a
 * millisecond that is worth a quarter more E8 requests a second (BENCHMARKS.md, issue 31); on a
 * disk whose flush takes several milliseconds (network block storage, a busy disk) it would stall
 * every page and read that long per group, and the thread pool is the better place.
 *
 * So flushes made on the event loop are timed (their time is exact there; one in the thread pool
 * is answered when the busy loop gets to it, so its time says little about the disk), and their
 * moving average decides: at most `inlineMaxMs`, the next flush is made on the event loop; above
 * it, in the thread pool, with one flush a second still made on the event loop to notice a disk
 * that became fast again. `inlineMaxMs` 0: always in the thread pool.
 *
 * A flush counts at most `SPIKE_CAP` times the setting: a disk with fast flushes stalls now and
 * then (one of 115 ms among flushes of 0.3 ms under a saturating E8, when the kernel wrote back
 * other pages), and one such stall, counted whole, moved every flush into the thread pool for
 * the eight seconds of probes it took the average to come down, at three quarters of the speed.
 * Counted as twice the setting, a stall alone leaves the flushes where they are while the average
 * is under two thirds of the setting (a stall holds the writes up either way: each group is
 * answered after its flush); a disk whose every flush takes twice the setting or more is still
 * found within three flushes.
 */
/** INLINE_FLUSH_MAX_MS's default: the server's and `openSqliteStorage`'s (docs/configuration.md). */
export const DEFAULT_INLINE_FLUSH_MAX_MS = 3;

export class FlushTiming {
  /** Weight of the newest flush in the moving average: a spike moves it, one alone does not rule. */
  static readonly WEIGHT = 0.25;
  /** In the thread pool, how often a flush is still made on the event loop to time the disk. */
  static readonly PROBE_EVERY_MS = 1_000;
  /** The most one flush counts in the average, in multiples of the setting. */
  static readonly SPIKE_CAP = 2;

  readonly #inlineMaxMs: number;
  readonly #now: () => number;
  /** Moving average of the timed flushes (ms); undefined before the first. */
  #averageMs: number | undefined;
  #lastTimedAt = Number.NEGATIVE_INFINITY;

  constructor(inlineMaxMs: number, now: () => number = () => performance.now()) {
    this.#inlineMaxMs = inlineMaxMs;
    this.#now = now;
  }

  /** Whether the next flush is made on the event loop (and timed). */
  inline(): boolean {
    if (this.#inlineMaxMs <= 0) return false;
    if (this.#averageMs === undefined || this.#averageMs <= this.#inlineMaxMs) return true;
    return this.#now() - this.#lastTimedAt >= FlushTiming.PROBE_EVERY_MS;
  }

  /** A flush made on the event loop took `ms`. */
  timed(ms: number): void {
    const counted = Math.min(ms, FlushTiming.SPIKE_CAP * this.#inlineMaxMs);
    this.#averageMs =
      this.#averageMs === undefined
        ? counted
        : this.#averageMs + FlushTiming.WEIGHT * (counted - this.#averageMs);
    this.#lastTimedAt = this.#now();
  }

  /** The moving average of the timed flushes (ms). */
  get averageMs(): number | undefined {
    return this.#averageMs;
  }
}
