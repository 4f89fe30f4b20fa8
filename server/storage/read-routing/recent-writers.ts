/**
 * The callers that wrote lately and when, in this process's memory: a caller's reads go to the
 * primary until the replica has replayed past its last write. Forgotten after `windowMs`, when a
 * replica within the lag limit has it anyway.
 */
export class RecentWriters {
  /** Caller → when its last write finished (epoch ms); oldest first (a Map keeps its order). */
  private readonly at = new Map<string, number>();
  private nextSweep = 0;

  constructor(private readonly windowMs: number) {}

  wrote(caller: string, now = Date.now()): void {
    // Deleted first, so that it moves to the end: the map stays in order of time.
    this.at.delete(caller);
    this.at.set(caller, now);
    if (now >= this.nextSweep) this.sweep(now);
  }

  /** When the caller last wrote, within the window; undefined: not lately. */
  lastWrite(caller: string, now = Date.now()): number | undefined {
    const at = this.at.get(caller);
    return at !== undefined && now - at < this.windowMs ? at : undefined;
  }

  /** Drops the writes older than the window (from the oldest: they are in order). */
  private sweep(now: number): void {
    this.nextSweep = now + this.windowMs;
    for (const [caller, at] of this.at) {
      if (now - at < this.windowMs) break;
      this.at.delete(caller);
    }
  }
}
