import { type DayChange, type DayRowChange, dayChanges, type ResultShape } from './test-days.js';
import { type SummaryChange, type SummaryRow, summariesAfter } from './test-recent.js';

/**
 * What a stored batch leaves to do for its tests' summaries (test-recent.ts) and day rows
 * (test-days.ts), done behind the batches (docs/tests.md, "Kept behind the batches"): a batch is
 * acknowledged once its results are durable, and its upkeep, queued in the same transaction, is
 * applied when the server has a lull; every read of the summaries or days applies its project's
 * queue first. Applied in any order, the upkeep gives what applying it in the batches' order
 * gives: day rows only add the batch's changes, and a summary takes the run's stored result of
 * each test (what it is when the upkeep is applied, not what the batch made it), which a later
 * batch's merge cannot undo.
 */
export interface TestUpkeep {
  runId: number;
  /** The branch the batch named (null: every branch's rows only). */
  branch: string | null;
  /** The run's UTC day (dayOf its time). */
  day: number;
  /** The batch's results: each one's result before the batch (a merge with an earlier batch) and after. */
  days: DayChange[];
  /** A run that named its branch with this batch: all its results after the batch. */
  named: { testId: number; after: ResultShape }[] | null;
}

type Packed = number[];

const packed = (r: ResultShape): Packed => [r.status, r.durationMs, r.attempts];
const shapeAt = (p: Packed, at: number): ResultShape => ({
  status: p[at] as number,
  durationMs: p[at + 1] as number,
  attempts: p[at + 2] as number,
});

/**
 * The queued text: JSON arrays of numbers, `[test, status, duration, attempts]` and the result
 * before it for a merge (a fifth of the size of the objects' JSON, and read back without names).
 */
export function encodeUpkeep(days: readonly DayChange[], named: TestUpkeep['named']): string {
  return JSON.stringify({
    d: days.map((c) =>
      c.before === undefined
        ? [c.testId, ...packed(c.after)]
        : [c.testId, ...packed(c.after), ...packed(c.before)],
    ),
    n: named?.map((c) => [c.testId, ...packed(c.after)]) ?? null,
  });
}

export function decodeUpkeep(text: string): Pick<TestUpkeep, 'days' | 'named'> {
  const { d, n } = JSON.parse(text) as { d: Packed[]; n: Packed[] | null };
  return {
    days: d.map((p) => ({
      testId: p[0] as number,
      after: shapeAt(p, 1),
      ...(p.length > 4 ? { before: shapeAt(p, 4) } : {}),
    })),
    named: n?.map((p) => ({ testId: p[0] as number, after: shapeAt(p, 1) })) ?? null,
  };
}

/** The tests whose stored results an upkeep's summaries take (`null`: every result of the run). */
export const upkeepTests = (upkeep: Pick<TestUpkeep, 'days' | 'named'>): number[] | null =>
  upkeep.named === null ? upkeep.days.map((c) => c.testId) : null;

/**
 * The rows an upkeep writes: summaries (from `stored`, the rows of its tests as they are, and
 * `results`, the run's results of those tests as stored now) and the day rows' changes.
 */
export function upkeepRows(
  upkeep: TestUpkeep,
  stored: readonly SummaryRow[],
  results: readonly SummaryChange[],
): { summaries: SummaryRow[]; days: DayRowChange[] } {
  return {
    summaries: summariesAfter(stored, upkeep.runId, upkeep.branch, results),
    days: dayChanges(upkeep.branch, upkeep.days, upkeep.named),
  };
}
