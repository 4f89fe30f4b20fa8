import { describe, expect, it } from 'vitest';
import { FlushTiming } from '../../server/storage/sqlite/flush-timing.js';

/**
 * Where the log is flushed (flush-timing.ts): on the event loop while the timed flushes' moving
 * average (each new one weighted 1/4) is at most the setting, else in the thread pool with one
 * timed flush a second. Each row: flush times fed in order (ms, a second apart unless told), and
 * whether the flush right after them is made on the event loop; the averages are worked out by
 * hand beside the rows.
 */
describe('FlushTiming', () => {
  const cases: {
    name: string;
    maxMs: number;
    flushes: number[];
    average?: number;
    inline: boolean;
  }[] = [
    {
      name: 'before any flush: on the event loop, to time one',
      maxMs: 1,
      flushes: [],
      inline: true,
    },
    { name: 'setting 0: never on the event loop', maxMs: 0, flushes: [], inline: false },
    {
      name: 'a fast disk stays on it',
      maxMs: 1,
      flushes: [0.4, 0.3, 0.5],
      average: 0.40625,
      inline: true,
    },
    // 0.4 → 0.4 + (8 − 0.4)/4 = 2.3 > 1. The fast disk: 0.4 → 0.375 → 0.375 + (0.5 − 0.375)/4.
    {
      name: 'one slow flush moves it off',
      maxMs: 1,
      flushes: [0.4, 8],
      average: 2.3,
      inline: false,
    },
    // 2.3 → 2.3 + (0.4 − 2.3)/4 = 1.825 → 1.46875 → 1.2015625 → 1.001171875 (still above 1)
    // → 0.85087890625: five fast flushes.
    {
      name: 'four fast flushes after a slow one are not yet enough',
      maxMs: 1,
      flushes: [0.4, 8, 0.4, 0.4, 0.4, 0.4],
      average: 1.001171875,
      inline: false,
    },
    { name: 'at the setting: on the event loop', maxMs: 1, flushes: [1], average: 1, inline: true },
    {
      name: 'and fast ones bring it back',
      maxMs: 1,
      flushes: [0.4, 8, 0.4, 0.4, 0.4, 0.4, 0.4],
      average: 0.85087890625,
      inline: true,
    },
    {
      name: 'the first flush alone sets the average',
      maxMs: 1,
      flushes: [3],
      average: 3,
      inline: false,
    },
  ];

  it.each(cases)('$name', ({ maxMs, flushes, average, inline }) => {
    let now = 0;
    const timing = new FlushTiming(maxMs, () => now);
    for (const ms of flushes) {
      now += FlushTiming.PROBE_EVERY_MS;
      timing.timed(ms);
    }
    if (average !== undefined) expect(timing.averageMs).toBeCloseTo(average, 12);
    // Asked at once after the last timed flush (no probe due yet).
    expect(timing.inline()).toBe(inline);
  });

  it('above the setting, only one flush a second is made on the event loop, to time the disk again', () => {
    let now = 10_000;
    const timing = new FlushTiming(1, () => now);
    timing.timed(5);
    expect(timing.inline()).toBe(false);
    now += FlushTiming.PROBE_EVERY_MS - 1;
    expect(timing.inline()).toBe(false);
    now += 1;
    expect(timing.inline()).toBe(true);
    // The probe was slow again: another second in the thread pool.
    timing.timed(4);
    expect(timing.averageMs).toBeCloseTo(5 + (4 - 5) / 4, 12);
    expect(timing.inline()).toBe(false);
  });
});
