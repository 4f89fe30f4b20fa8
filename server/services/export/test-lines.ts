import { TEST_LINE_KEYS } from '../../../contract/export.js';
import { STATUS_NAME } from '../../domain/tests/test-status.js';
import type { ExportTestRow } from '../../storage/tests/test-export.js';
import type { StoredTestRun } from '../../storage/tests/test-repository.js';
import { csvRow } from './export-lines.js';

type TestLine = Record<(typeof TEST_LINE_KEYS)[number], string | number | null>;

/**
 * A test result's line of a `tests` export (docs/export.md): its run and its test by their ids in
 * the API, then its outcome, in TEST_LINE_KEYS' order; `id` is `<run>:<test>`, the cursor.
 */
function valuesOf(run: StoredTestRun, row: ExportTestRow): TestLine {
  return {
    id: `${run.key}:${row.key}`,
    created_at: new Date(run.createdAt).toISOString(),
    run: run.key,
    buildId: run.buildId,
    attempt: run.attempt,
    commit: run.commit,
    branch: run.branch,
    pullRequest: run.pullRequest,
    eventId: run.eventId,
    test: row.key,
    suite: row.suite,
    classname: row.classname,
    name: row.name,
    file: row.file,
    line: row.line,
    status: STATUS_NAME[row.status] ?? null,
    duration_ms: row.durationMs,
    attempts: row.attempts,
    message: row.message,
  };
}

// valuesOf builds its object in TEST_LINE_KEYS' order, which JSON.stringify keeps.
export const testLine = (run: StoredTestRun, row: ExportTestRow): string =>
  `${JSON.stringify(valuesOf(run, row))}\n`;

export const testCsv = (run: StoredTestRun, row: ExportTestRow): string => {
  const values = valuesOf(run, row);
  return csvRow(TEST_LINE_KEYS.map((key) => values[key]));
};

/** A `tests` cursor, `<run>:<test>`, as its two ids; undefined when it is not one. */
export function testCursorOf(after: string): { run: string; test: string } | undefined {
  const [run, test, ...rest] = after.split(':');
  return run && test && rest.length === 0 ? { run, test } : undefined;
}
