/**
 * Seconds a refused heavy read asks the client to wait (Retry-After): the reads ahead of it take
 * a fraction of a second each.
 */
export const BUSY_RETRY_AFTER_S = 1;

/** The project's heavy reads are all running and its queue is full: 429 with Retry-After. */
export class ProjectBusy extends Error {
  readonly statusCode = 429;
  readonly retryAfterS = BUSY_RETRY_AFTER_S;
}

interface Slots {
  running: number;
  waiting: (() => void)[];
}

/**
 * Fair sharing of the heavy reads (statistics pages, share pages, badges, series, build summaries,
 * key lists and the records' read-back) between projects, the shape of the per-key cap of the API
 * (key-concurrency.ts) keyed by project: at most `limit` of one project's heavy reads run at once,
 * up to `queue` more wait their turn in arrival order, and any further one is refused at once
 * (ProjectBusy) rather than queued without end. One project, however many clients, keys and share
 * links hammer it, then holds at most `limit` database connections and `limit` reads' worth of
 * the event loop; the next waiting read starts on a later turn of the event loop, so other
 * projects' requests are served in between.
 */
export class ProjectGate {
  private readonly slots = new Map<string, Slots>();

  constructor(
    private readonly limit: number,
    private readonly queue: number,
  ) {}

  /** Runs `work` when the project's turn comes; ProjectBusy when its queue is full. */
  async run<T>(projectId: string, work: () => Promise<T>): Promise<T> {
    if (this.limit === 0) return work();
    const slots = this.slots.get(projectId) ?? { running: 0, waiting: [] };
    this.slots.set(projectId, slots);
    if (slots.running >= this.limit) {
      if (slots.waiting.length >= this.queue) throw new ProjectBusy('project busy');
      await new Promise<void>((resolve) => slots.waiting.push(resolve));
    }
    slots.running += 1;
    try {
      return await work();
    } finally {
      slots.running -= 1;
      const next = slots.waiting.shift();
      if (next) setImmediate(next);
      else if (slots.running === 0) this.slots.delete(projectId);
    }
  }
}
