import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import {
  BATCH_QUIET_MS,
  MAX_WAIT_MS,
  QUIET_MS,
  TestsPacing,
  WAIT_FACTOR,
} from '../../server/services/tests/tests-pacing.js';

/**
 * The rule of tests-pacing.ts, with the other requests played by calls to began() and ended():
 * a batch waits while another request is in flight or one began or ended less than QUIET_MS ago,
 * at most WAIT_FACTOR times the previous batch's store and never more than MAX_WAIT_MS; batches
 * are stored one at a time, in order. Waits are read from the pacing's own figures and from the
 * clock, with room for timers' lateness (never less than asked).
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A store that takes `ms` of the clock (a timer: the event loop stays free, as on PostgreSQL).
 * By `performance.now()` a timer may fire a little before its delay: Node counts it from the
 * time the event loop read at the start of its turn. Waits that follow from a timer's length are
 * checked against its length as measured.
 */
const storeTaking =
  (ms: number, log: string[] = [], name = '') =>
  async () => {
    log.push(`start ${name}`);
    await sleep(ms);
    log.push(`end ${name}`);
    return name;
  };

/** A store of `ms` by its timer, and its time as measured inside it (the pacing's encloses it). */
function measuredStore(ms: number) {
  const measured = {
    ms: 0,
    store: async () => {
      const at = performance.now();
      await sleep(ms);
      measured.ms = performance.now() - at;
    },
  };
  return measured;
}

describe('TestsPacing', () => {
  it('stores at once on a server with nothing else to do', async () => {
    const pacing = new TestsPacing();
    for (let i = 0; i < 3; i++) await pacing.run(storeTaking(20));
    expect(pacing.stats).toEqual({ batches: 3, waited: 0, waitedMs: 0 });
  });

  it('waits WAIT_FACTOR times the previous store while another request is in flight', async () => {
    const pacing = new TestsPacing();
    const previous = measuredStore(10);
    await pacing.run(previous.store);
    pacing.began();
    const asked = performance.now();
    await pacing.run(storeTaking(1));
    const took = performance.now() - asked;
    expect(pacing.stats.waited).toBe(1);
    expect(pacing.stats.waitedMs).toBeGreaterThanOrEqual(WAIT_FACTOR * previous.ms);
    expect(took).toBeGreaterThanOrEqual(WAIT_FACTOR * previous.ms);
    pacing.ended();
  });

  it('goes once the other requests have ended and QUIET_MS passed, not at its deadline', async () => {
    const pacing = new TestsPacing();
    await pacing.run(storeTaking(200)); // a deadline of 12 × 200 ms
    pacing.began();
    const asked = performance.now();
    const stored = pacing.run(storeTaking(1));
    await sleep(50);
    const endedIn = performance.now() - asked;
    pacing.ended();
    await stored;
    const took = performance.now() - asked;
    expect(pacing.stats.waited).toBe(1);
    expect(took).toBeGreaterThanOrEqual(endedIn + QUIET_MS);
    expect(took).toBeLessThan(200 * WAIT_FACTOR);
  });

  it('waits for QUIET_MS after another request ended, even with none in flight', async () => {
    const pacing = new TestsPacing();
    await pacing.run(storeTaking(20));
    pacing.began();
    pacing.ended();
    const asked = performance.now();
    await pacing.run(storeTaking(1));
    expect(pacing.stats.waited).toBe(1);
    expect(performance.now() - asked).toBeGreaterThanOrEqual(QUIET_MS - 1);
  });

  it('never waits longer than MAX_WAIT_MS', async () => {
    const pacing = new TestsPacing();
    // A previous store so long that WAIT_FACTOR times it is far past the bound.
    await pacing.run(storeTaking(Math.ceil(MAX_WAIT_MS / WAIT_FACTOR) + 100));
    pacing.began();
    const asked = performance.now();
    await pacing.run(storeTaking(1));
    const took = performance.now() - asked;
    expect(took).toBeGreaterThanOrEqual(MAX_WAIT_MS - 1);
    expect(took).toBeLessThan(MAX_WAIT_MS + 1_000);
    pacing.ended();
  }, 20_000);

  it('stores batches one at a time, in the order they came, and a failed one does not stop the next', async () => {
    const pacing = new TestsPacing();
    const log: string[] = [];
    const failing = async () => {
      log.push('start b');
      throw new Error('disk full');
    };
    const results = await Promise.allSettled([
      pacing.run(storeTaking(30, log, 'a')),
      pacing.run(failing),
      pacing.run(storeTaking(5, log, 'c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'start c', 'end c']);
    expect(pacing.stats.batches).toBe(3);
  });
});

/**
 * `lull(deadline)`, what the tests' upkeep waits for (test-upkeep-worker.ts): every request quiet
 * (tests batches for BATCH_QUIET_MS after the last one, others for QUIET_MS), else the deadline
 * when only other requests keep it waiting, else MAX_WAIT_MS past the deadline while batches do.
 */
describe('TestsPacing.lull', () => {
  const waited = async (pacing: TestsPacing, deadlineIn: number) => {
    const asked = performance.now();
    await pacing.lull(asked + deadlineIn);
    return performance.now() - asked;
  };

  it('comes at once on a quiet server', async () => {
    expect(await waited(new TestsPacing(), 10_000)).toBeLessThan(QUIET_MS);
  });

  it('waits BATCH_QUIET_MS after a batch, QUIET_MS after another request', async () => {
    const pacing = new TestsPacing();
    pacing.began(true);
    pacing.ended(true);
    expect(await waited(pacing, 10_000)).toBeGreaterThanOrEqual(BATCH_QUIET_MS - 1);
    pacing.began();
    pacing.ended();
    const took = await waited(pacing, 10_000);
    expect(took).toBeGreaterThanOrEqual(QUIET_MS - 1);
    expect(took).toBeLessThan(BATCH_QUIET_MS);
  });

  it('waits for a batch queued in the pacing and for one in flight', async () => {
    const pacing = new TestsPacing();
    pacing.began(true);
    const asked = performance.now();
    const lull = pacing.lull(asked + 10_000);
    await sleep(40);
    pacing.ended(true);
    // The reporter's next batch, stored for 60 ms.
    await sleep(10);
    pacing.began(true);
    const queuedIn = performance.now() - asked;
    const next = measuredStore(60);
    const stored = pacing.run(next.store);
    pacing.ended(true);
    await stored;
    await lull;
    // The batch stored no sooner than queuedIn + its time: the lull came BATCH_QUIET_MS after.
    expect(queuedIn).toBeGreaterThan(40);
    expect(performance.now() - asked).toBeGreaterThanOrEqual(queuedIn + next.ms + BATCH_QUIET_MS);
  });

  it('goes at its deadline while only other requests are in flight', async () => {
    const pacing = new TestsPacing();
    pacing.began();
    const took = await waited(pacing, 100);
    expect(took).toBeGreaterThanOrEqual(99);
    expect(took).toBeLessThan(100 + 500);
    pacing.ended();
  });

  it('lets batches go first up to MAX_WAIT_MS past its deadline', async () => {
    const pacing = new TestsPacing();
    pacing.began(true);
    const took = await waited(pacing, 100);
    expect(took).toBeGreaterThanOrEqual(100 + MAX_WAIT_MS - 1);
    expect(took).toBeLessThan(100 + MAX_WAIT_MS + 1_000);
    pacing.ended(true);
  }, 20_000);

  it('ends when its signal aborts', async () => {
    const pacing = new TestsPacing();
    pacing.began(true);
    const stop = new AbortController();
    const asked = performance.now();
    const lull = pacing.lull(asked + 10_000, stop.signal);
    await sleep(30);
    stop.abort();
    await lull;
    expect(performance.now() - asked).toBeLessThan(30 + 500);
    pacing.ended(true);
  });
});
