import type { ExportQuery } from '../../../contract/export.js';
import { NotFound } from '../../domain/domain-errors.js';
import type { Storage } from '../../storage/storage.js';
import { testCsv, testCursorOf, testLine } from './test-lines.js';

/** Results read per query, and runs per query (a run may have many thousands of results). */
const RESULTS_PAGE = 1_000;
const RUNS_PAGE = 100;

/** Where a `tests` export resumes: in the run of storage id `run`, after the test of id `test`. */
export interface TestStart {
  run: number;
  test: number;
}

export const FROM_THE_START: TestStart = { run: 0, test: 0 };

/** The position of the result whose line has id `after` (`<run>:<test>`); NotFound otherwise. */
export async function testStartAfter(
  storage: Storage,
  projectId: string,
  after: string,
): Promise<TestStart> {
  const cursor = testCursorOf(after);
  const found = cursor && (await storage.exports.testPosition(projectId, cursor.run, cursor.test));
  if (!found) throw new NotFound('record');
  return found;
}

/**
 * The lines of a `tests` export, a page of results at a time: the project's runs in stored
 * order, each run's results in its tests' stored order. Nothing is held but the page in hand.
 */
export async function* testChunks(storage: Storage, query: ExportQuery, start: TestStart) {
  const csv = query.format === 'csv';
  const range = { from: query.from, to: query.to };
  for (let afterRun = Math.max(0, start.run - 1); ; ) {
    const runs = await storage.exports.testRuns(query.projectId, range, afterRun, RUNS_PAGE);
    for (const run of runs) {
      let afterTest = run.id === start.run ? start.test : 0;
      for (;;) {
        const rows = await storage.exports.testResults(run.id, afterTest, RESULTS_PAGE);
        if (rows.length > 0) {
          yield rows.map((row) => (csv ? testCsv(run, row) : testLine(run, row))).join('');
        }
        const last = rows.at(-1);
        if (rows.length < RESULTS_PAGE || last === undefined) break;
        afterTest = last.testSeq;
      }
    }
    const last = runs.at(-1);
    if (runs.length < RUNS_PAGE || last === undefined) return;
    afterRun = last.id;
  }
}
