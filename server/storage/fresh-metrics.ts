import type { PendingMetric } from './storage.js';

/** Payload text held at most, in UTF-16 code units: a backlog past it is read from the table. */
const MAX_CHARS = 16 * 1024 * 1024;

/**
 * The metric records this process stored and judging has not read yet, by position, each with
 * its payload as ingest parsed it. Judging takes a record from here instead of reading its row
 * back and parsing its JSON again, which was a third of judging's cost per record (BENCHMARKS.md,
 * issue 31). Only a cache: a record missing here (stored by another process, by an import, or
 * past the bound) is read from the table as before. An entry is written when its insert runs, so a
 * group that rolls back leaves one behind; its position is then given to the next insert, whose
 * entry replaces it, and judging only asks for positions the table holds.
 */
export class FreshMetrics {
  readonly #bySeq = new Map<number, PendingMetric>();
  #chars = 0;

  /** Remembers a stored record (nothing when the bound is reached). */
  stored(metric: PendingMetric): void {
    const earlier = this.#bySeq.get(metric.seq);
    if (earlier) this.#chars -= earlier.payload.length;
    if (this.#chars + metric.payload.length > MAX_CHARS) {
      this.#bySeq.delete(metric.seq);
      return;
    }
    this.#bySeq.set(metric.seq, metric);
    this.#chars += metric.payload.length;
  }

  /** The record at `seq`, if this process remembers it. */
  at(seq: number): PendingMetric | undefined {
    return this.#bySeq.get(seq);
  }

  /** Judging is done with every position up to `seq`: forgets them. */
  judgedThrough(seq: number): void {
    // Insertion order is position order, except a position given again after a rollback: it is
    // forgotten with the rest once judging passes it.
    for (const [at, metric] of this.#bySeq) {
      if (at > seq) break;
      this.#bySeq.delete(at);
      this.#chars -= metric.payload.length;
    }
  }
}
