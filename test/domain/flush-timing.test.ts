import { describe, expect, it } from 'vitest';
import { FlushTiming } from '../../server/storage/sqlite/flush-timing.js';

/**
 * Where the log is flushed (flush-timing.ts): on the event loop while the timed flushes' moving
 * average (each new one weighted 1/4) is at most the setting, else in the thread pool with one
 * timed flush a second. Each row: flush times fed in order (ms, a second apart unless told), and
 * whether the flush right after them is made on the event loop; the averages are worked out by
 * hand beside the rows. A flush counts at most twice the setting (a stall is one flush).
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
    // The fast disk: 0.4 → 0.375 → 0.375 + (0.5 − 0.375)/4. A flush counts at most twice the
    // setting (2 here): 0.4 → 0.4 + (2 − 0.4)/4 = 0.8 ≤ 1, whether the stall took 8 or 115 ms.
    {
      name: 'one stall alone, counted as twice the setting, leaves it on the event loop',
      maxMs: 1,
      flushes: [0.4, 115],
      average: 0.8,
      inline: true,
    },
    // 0.8 → 0.8 + (2 − 0.8)/4 = 1.1 > 1.
    {
      name: 'slow flushes in a row move it off',
      maxMs: 1,
      flushes: [0.4, 8, 8],
      average: 1.1,
      inline: false,
    },
    // 2 → 2 + (0.4 − 2)/4 = 1.6 → 1.3 → 1.075 (still above 1) → 0.90625: four fast flushes.
    {
      name: 'three fast flushes after a slow disk are not yet enough',
      maxMs: 1,
      flushes: [8, 0.4, 0.4, 0.4],
      average: 1.075,
      inline: false,
    },
    { name: 'at the setting: on the event loop', maxMs: 1, flushes: [1], average: 1, inline: true },
    {
      name: 'and the fourth brings it back',
      maxMs: 1,
      flushes: [8, 0.4, 0.4, 0.4, 0.4],
      average: 0.90625,
      inline: true,
    },
    {
      name: 'the first flush alone sets the average',
      maxMs: 1,
      flushes: [1.5],
      average: 1.5,
      inline: false,
    },
    {
      name: 'a stall at the setting 3 counts as 6',
      maxMs: 3,
      flushes: [115],
      average: 6,
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
    timing.timed(1.8);
    expect(timing.inline()).toBe(false);
    now += FlushTiming.PROBE_EVERY_MS - 1;
    expect(timing.inline()).toBe(false);
    now += 1;
    expect(timing.inline()).toBe(true);
    // The probe was slow again: another second in the thread pool.
    timing.timed(1.4);
    expect(timing.averageMs).toBeCloseTo(1.8 + (1.4 - 1.8) / 4, 12);
    expect(timing.inline()).toBe(false);
  });
});
