import { readFile } from 'node:fs/promises';
import type { TestCase } from '../../contract/tests/ingest-tests.js';
import { InputError } from '../input-error.js';
import { firstLine, MAX_FAILURES, MAX_NAME_LENGTH, type TestResults } from '../junit.js';
import { matchingFiles } from '../matching-files.js';
import { CaseTable } from './case-table.js';

/** A test of a CTRF report (https://ctrf.io), the fields we read. */
interface CtrfTest {
  name?: unknown;
  status?: unknown;
  duration?: unknown;
  message?: unknown;
  trace?: unknown;
  suite?: unknown;
  filePath?: unknown;
  line?: unknown;
  retries?: unknown;
  flaky?: unknown;
}

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
const count = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;

/** CTRF's statuses: `pending` is not run (skipped), `other` (interrupted, timed out) an error. */
const STATUS: Record<string, TestCase['status']> = {
  passed: 'passed',
  failed: 'failed',
  skipped: 'skipped',
  pending: 'skipped',
  other: 'error',
};

/**
 * One CTRF test as a test case. `retries` is the attempts before the last; `flaky: true` means it
 * passed after failing, so it had at least two attempts. A suite given as a path (`["a", "b"]`)
 * is written `a > b`.
 */
export function ctrfCase(test: CtrfTest): TestCase | undefined {
  const name = str(test.name);
  const status = typeof test.status === 'string' ? STATUS[test.status] : undefined;
  if (name === undefined || status === undefined) return undefined;
  const suite = Array.isArray(test.suite)
    ? test.suite.filter((part) => typeof part === 'string').join(' > ')
    : (str(test.suite) ?? '');
  let attempts = count(test.retries) + 1;
  if (test.flaky === true && status === 'passed') attempts = Math.max(attempts, 2);
  const duration = typeof test.duration === 'number' && test.duration >= 0 ? test.duration : 0;
  const file = str(test.filePath);
  const line = count(test.line);
  const message = str(test.message) ?? str(test.trace);
  const failed = status === 'failed' || status === 'error';
  return {
    suite,
    name,
    ...(file === undefined ? {} : { file }),
    ...(line >= 1 ? { line } : {}),
    duration_ms: duration,
    status,
    ...(failed && message !== undefined ? { message: firstLine(message) } : {}),
    ...(attempts > 1 ? { attempts } : {}),
  };
}

async function readCtrf(path: string, into: TestResults): Promise<void> {
  let report: unknown;
  try {
    report = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new InputError('ctrf-files', `${path} is not a readable CTRF report (${reason})`);
  }
  const tests = (report as { results?: { tests?: unknown } } | null)?.results?.tests;
  if (!Array.isArray(tests)) {
    throw new InputError('ctrf-files', `${path} is not a CTRF report (no results.tests array)`);
  }
  const { counts, failures } = into;
  for (const test of tests as CtrfTest[]) {
    const c = ctrfCase(test ?? {});
    if (c === undefined) continue;
    counts.total += 1;
    counts[c.status === 'error' ? 'errors' : c.status] += 1;
    counts.duration_ms += c.duration_ms;
    if ((c.status === 'failed' || c.status === 'error') && failures.length < MAX_FAILURES) {
      failures.push({
        suite: c.suite.slice(0, MAX_NAME_LENGTH),
        name: c.name.slice(0, MAX_NAME_LENGTH),
        message: c.message ?? '',
      });
    }
    into.cases?.add(c);
  }
  into.files.push(path);
}

/**
 * Reads every CTRF JSON report the globs match (relative to `cwd`), adding to `into` (the JUnit
 * reports' results, when there were some). A glob that matches nothing is a warning; a file that
 * is not a CTRF report is an InputError naming it. Undefined when nothing was read at all.
 */
export async function readCtrfReports(
  globs: string[],
  warn: (message: string) => void,
  into: TestResults | undefined,
  cwd: string = process.cwd(),
): Promise<TestResults | undefined> {
  const files = await matchingFiles(globs, cwd, (pattern) => {
    warn(`No CTRF report matches ${pattern}`);
  });
  if (files.size === 0) return into;
  const results: TestResults = into ?? {
    counts: { total: 0, passed: 0, failed: 0, errors: 0, skipped: 0, duration_ms: 0 },
    failures: [],
    files: [],
    cases: new CaseTable(),
  };
  for (const file of files) await readCtrf(file, results);
  results.counts.duration_ms = Math.round(results.counts.duration_ms);
  return results;
}
