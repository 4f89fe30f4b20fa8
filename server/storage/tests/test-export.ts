import type { ExportRange } from '../storage.js';
import type { StoredTestRun } from './test-repository.js';

/**
 * The pages of a `tests` export (docs/export.md), in stored order: the project's runs by their
 * storage id, and each run's results by their test's storage id, so a page is an index range on
 * both backends (test_results is clustered by run, then test), never an offset.
 */

/** A result as exported: its test's position, names and id, its outcome, its message's text. */
export interface ExportTestRow {
  /** The test's storage id: the result's position within its run. */
  testSeq: number;
  key: string;
  suite: string;
  classname: string | null;
  name: string;
  file: string | null;
  line: number | null;
  status: number;
  durationMs: number;
  attempts: number;
  message: string | null;
}

export interface TestExportPages {
  /** The project's runs after storage id `afterRun`, in id order, made within `range`. */
  testRuns(
    projectId: string,
    range: ExportRange,
    afterRun: number,
    limit: number,
  ): Promise<StoredTestRun[]>;
  /** A run's results after the test of storage id `afterTest`, in test id order. */
  testResults(runId: number, afterTest: number, limit: number): Promise<ExportTestRow[]>;
  /** The storage ids of the project's run and test with these ids (where an export resumes). */
  testPosition(
    projectId: string,
    runKey: string,
    testKey: string,
  ): Promise<{ run: number; test: number } | undefined>;
}

/** What both backends select from a run's results, under the same names (then `exportTestOf`). */
export const EXPORT_RESULT_SELECT = `SELECT c.id AS "testSeq", c.key, c.suite, c.classname, c.name,
  c.file, c.line, r.status, r.duration_ms AS "durationMs", r.attempts, m.text AS message
  FROM test_results r JOIN test_cases c ON c.id = r.test_id
  LEFT JOIN test_messages m ON m.id = r.message_id`;

const nOrNull = (value: unknown) => (value === null ? null : Number(value));

export const exportTestOf = (row: Record<string, unknown>): ExportTestRow => ({
  testSeq: Number(row.testSeq),
  key: row.key as string,
  suite: row.suite as string,
  classname: row.classname as string | null,
  name: row.name as string,
  file: row.file as string | null,
  line: nOrNull(row.line),
  status: Number(row.status),
  durationMs: Number(row.durationMs),
  attempts: Number(row.attempts),
  message: row.message as string | null,
});

/** Both backends' answer to testPosition, from the two ids found (or not). */
export const positionOf = (row: { run: unknown; test: unknown } | undefined) =>
  row === undefined || row.run === null || row.test === null
    ? undefined
    : { run: Number(row.run), test: Number(row.test) };
