import { FLIP_WINDOW } from './test-analysis.js';
import { passedOnRetry } from './test-status.js';

/**
 * A test's summary on one branch (or on every branch: `EVERY_BRANCH`), kept as results are
 * stored (docs/tests.md, "The per-test summary"): the newest run it has a result in, and its
 * newest FLIP_WINDOW results that were not skipped, oldest first. Those are what the flaky
 * answer's flips and score look at, so over the runs of a range that reaches the newest run
 * they are exact without reading the test's results.
 */
export interface RecentResult {
  runId: number;
  /** The stored status (0 passed, 1 failed, 2 error), or RETRIED for a pass on retry. */
  code: number;
}

/** The summary row of every branch together (a real branch name is never empty). */
export const EVERY_BRANCH = '';
/** A pass after failed attempts, in a summary's code. */
export const RETRIED = 4;

export const codeOf = (status: number, attempts: number) =>
  passedOnRetry(status, attempts) ? RETRIED : status;

/** `runId:code` entries, oldest first, separated by commas (compact and the same on both backends). */
export function parseRecent(text: string): RecentResult[] {
  if (text === '') return [];
  return text.split(',').map((entry) => {
    const at = entry.indexOf(':');
    return { runId: Number(entry.slice(0, at)), code: Number(entry.slice(at + 1)) };
  });
}

export const formatRecent = (recent: readonly RecentResult[]) =>
  recent.map((r) => `${r.runId}:${r.code}`).join(',');

/**
 * The window after a test's result in `runId` became `status` (a new result, or one merged with
 * a later batch of the same run): the run's entry replaced, a skip left out, the newest
 * FLIP_WINDOW kept.
 */
export function withResult(
  recent: readonly RecentResult[],
  runId: number,
  status: number,
  attempts: number,
): RecentResult[] {
  const next = recent.filter((r) => r.runId !== runId);
  if (status !== 3) {
    let at = next.length;
    while (at > 0 && (next[at - 1] as RecentResult).runId > runId) at -= 1;
    next.splice(at, 0, { runId, code: codeOf(status, attempts) });
  }
  return next.slice(-FLIP_WINDOW);
}

/**
 * withResult on the stored text. A run newer than every entry (each batch of a new run) is
 * appended as text, without parsing the window: the ingest of 5,000 cases does it 10,000 times.
 */
export function afterResult(text: string, runId: number, status: number, attempts: number) {
  const lastAt = text.lastIndexOf(',') + 1;
  const last = text === '' ? -1 : Number(text.slice(lastAt, text.indexOf(':', lastAt)));
  if (last >= runId) return formatRecent(withResult(parseRecent(text), runId, status, attempts));
  if (status === 3) return text;
  const entry = `${runId}:${codeOf(status, attempts)}`;
  if (text === '') return entry;
  let entries = 1;
  for (let at = text.indexOf(','); at >= 0; at = text.indexOf(',', at + 1)) entries += 1;
  const kept = entries >= FLIP_WINDOW ? text.slice(text.indexOf(',') + 1) : text;
  return `${kept},${entry}`;
}

/** A summary row as stored. */
export interface SummaryRow {
  testId: number;
  branch: string;
  lastRun: number;
  recent: string;
}

/** One stored result, as the summary's upkeep needs it. */
export interface SummaryChange {
  testId: number;
  status: number;
  attempts: number;
}

/**
 * The summary rows after `changes` in run `runId` on `branch`: each test's row of the branch and
 * of every branch (`rows` the ones stored, missing ones start empty).
 */
export function summariesAfter(
  rows: readonly SummaryRow[],
  runId: number,
  branch: string | null,
  changes: readonly SummaryChange[],
): SummaryRow[] {
  const byKey = new Map(rows.map((row) => [`${row.testId}\u0001${row.branch}`, row]));
  const out = new Map<string, SummaryRow>();
  const branches = branch === null ? [EVERY_BRANCH] : [EVERY_BRANCH, branch];
  for (const change of changes) {
    for (const b of branches) {
      const key = `${change.testId}\u0001${b}`;
      const row = out.get(key) ??
        byKey.get(key) ?? { testId: change.testId, branch: b, lastRun: 0, recent: '' };
      out.set(key, {
        testId: change.testId,
        branch: b,
        lastRun: Math.max(row.lastRun, runId),
        recent: afterResult(row.recent, runId, change.status, change.attempts),
      });
    }
  }
  return [...out.values()];
}
