import { createReadStream } from 'node:fs';
import sax from 'sax';
import { InputError } from './input-error.js';
import { matchingFiles } from './matching-files.js';
import { CaseTable } from './tests/case-table.js';

export interface TestCounts {
  total: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  duration_ms: number;
}

export interface TestFailure {
  suite: string;
  name: string;
  message: string;
}

/** A failed test whose report says where it is: an annotation on a check run. */
export interface LocatedFailure extends TestFailure {
  file: string;
  line: number;
}

export interface TestResults {
  counts: TestCounts;
  /** Failed and errored tests, in report order: at most MAX_FAILURES. */
  failures: TestFailure[];
  /** The failed tests with a `file` (and `line`) attribute, at most MAX_LOCATED (JUnit only). */
  located?: LocatedFailure[];
  files: string[];
  /** Every test case (sent to POST /stats/ingest-tests), when the reports were read for them. */
  cases?: CaseTable;
}

export const MAX_FAILURES = 50;
/** Failures kept with their place in the code: GitHub takes 50 annotations per request. */
export const MAX_LOCATED = 1000;
export const MAX_MESSAGE_LENGTH = 200;
/** Suite and test names are cut too (parametrised tests can have very long ones). */
export const MAX_NAME_LENGTH = 200;
/**
 * Surefire's retries inside one testcase: `flakyFailure`/`flakyError` are failed attempts of a
 * test that passed in the end, `rerunFailure`/`rerunError` those of one that failed every time.
 * Either way they are attempts; the outcome is the testcase's own.
 */
const RETRY_ELEMENTS = new Set(['flakyFailure', 'flakyError', 'rerunFailure', 'rerunError']);
/** Of a failure's text, only this much is kept while reading (its first line is what we need). */
const MAX_TEXT_KEPT = 4 * 1024;

const seconds = (text: string | undefined) => {
  const value = Number(text?.replace(/,/g, ''));
  return text !== undefined && text.trim() !== '' && Number.isFinite(value) && value >= 0
    ? value
    : undefined;
};

export function firstLine(text: string): string {
  const line = text.trim().split(/\r?\n/, 1)[0]?.trim() ?? '';
  return line.length > MAX_MESSAGE_LENGTH ? line.slice(0, MAX_MESSAGE_LENGTH) : line;
}

interface Suite {
  name: string;
  /** The suite's own `time`, when it has one; else the sum of what it contains. */
  time: number | undefined;
  sum: number;
}

interface Case {
  suite: string;
  /** The enclosing `testsuite`'s name, the `classname` and `file` attributes, as written. */
  suiteName: string;
  classname: string | undefined;
  file: string | undefined;
  line: number | undefined;
  /** Failed attempts before the last (Surefire's flakyFailure/flakyError, rerunFailure/rerunError). */
  retries: number;
  name: string;
  time: number;
  outcome: 'passed' | 'failed' | 'errors' | 'skipped';
  message: string | undefined;
  text: string;
  /** Depth of the failure/error element whose text is being read, if any. */
  reading: boolean;
}

/**
 * Adds one JUnit XML report to the results, reading it as a stream: sax emits long text in
 * 64 kB pieces, and only the first few kB of a failure's text are kept, so a report of any size
 * costs a few MB. Counts come from the `testcase` elements (suite attributes are often missing or
 * stale): a `failure` child makes it failed, an `error` child errored, a `skipped` child skipped.
 * Durations: the root's `time`, else its suites' `time`, else the sum of the cases' `time`.
 */
export function readReport(path: string, into: TestResults): Promise<void> {
  // No position: errors are told by their first line only, and keeping it cost a sixth of the parse.
  const parser = sax.parser(true, { trim: false, normalize: false, position: false });
  const suites: Suite[] = [];
  let current: Case | undefined;
  let depthInCase = 0;
  let fileDuration = 0;
  let sawRoot = false;

  const close = (time: number) => {
    const parent = suites.at(-1);
    if (parent) parent.sum += time;
    else fileDuration += time;
  };

  parser.onopentag = (tag) => {
    const attrs = tag.attributes as Record<string, string>;
    sawRoot = true;
    if (current) {
      depthInCase += 1;
      if (depthInCase !== 1) return;
      if (RETRY_ELEMENTS.has(tag.name)) {
        current.retries += 1;
        return;
      }
      const outcome =
        tag.name === 'failure'
          ? 'failed'
          : tag.name === 'error'
            ? 'errors'
            : tag.name === 'skipped'
              ? 'skipped'
              : undefined;
      if (!outcome) return;
      // A case that failed and errored counts once, as failed.
      if (current.outcome === 'passed' || outcome === 'failed') current.outcome = outcome;
      if (outcome !== 'skipped' && current.message === undefined) {
        current.message = attrs.message?.trim() ? attrs.message : undefined;
        current.reading = current.message === undefined;
      }
      return;
    }
    if (tag.name === 'testsuites' || tag.name === 'testsuite') {
      suites.push({ name: attrs.name ?? '', time: seconds(attrs.time), sum: 0 });
    } else if (tag.name === 'testcase') {
      const line = Number(attrs.line);
      current = {
        suite: attrs.classname || suites.at(-1)?.name || '',
        suiteName: suites.at(-1)?.name ?? '',
        classname: attrs.classname || undefined,
        file: attrs.file || undefined,
        line: Number.isInteger(line) && line >= 1 ? line : undefined,
        retries: 0,
        name: attrs.name ?? '',
        time: seconds(attrs.time) ?? 0,
        outcome: 'passed',
        message: undefined,
        text: '',
        reading: false,
      };
      depthInCase = 0;
    }
  };

  const onText = (text: string) => {
    if (current?.reading && depthInCase === 1 && current.text.length < MAX_TEXT_KEPT) {
      current.text += text.slice(0, MAX_TEXT_KEPT - current.text.length);
    }
  };
  parser.ontext = onText;
  parser.oncdata = onText;

  parser.onclosetag = (name) => {
    if (current) {
      if (depthInCase > 0) {
        if (depthInCase === 1) current.reading = false;
        depthInCase -= 1;
        return;
      }
      if (name !== 'testcase') return;
      const { counts, failures } = into;
      into.located ??= [];
      const located = into.located;
      counts.total += 1;
      counts[current.outcome] += 1;
      if (current.outcome === 'failed' || current.outcome === 'errors') {
        const failure = {
          suite: current.suite.slice(0, MAX_NAME_LENGTH),
          name: current.name.slice(0, MAX_NAME_LENGTH),
          message: firstLine(current.message ?? current.text),
        };
        if (failures.length < MAX_FAILURES) failures.push(failure);
        if (current.file && located.length < MAX_LOCATED) {
          located.push({ ...failure, file: current.file, line: current.line ?? 1 });
        }
      }
      into.cases?.add({
        suite: current.suiteName,
        ...(current.classname === undefined ? {} : { classname: current.classname }),
        name: current.name,
        ...(current.file === undefined ? {} : { file: current.file }),
        ...(current.line === undefined ? {} : { line: current.line }),
        duration_ms: current.time * 1000,
        status: current.outcome === 'errors' ? 'error' : current.outcome,
        ...(current.outcome === 'failed' || current.outcome === 'errors'
          ? { message: firstLine(current.message ?? current.text) }
          : {}),
        attempts: current.retries + 1,
      });
      close(current.time);
      current = undefined;
      return;
    }
    if (name === 'testsuites' || name === 'testsuite') {
      const suite = suites.pop();
      if (suite) close(suite.time ?? suite.sum);
    }
  };

  return new Promise<void>((resolve, reject) => {
    const fail = (message: string) =>
      reject(
        new InputError('junit-files', `${path} is not a readable JUnit XML report (${message})`),
      );
    parser.onerror = (error) => {
      stream.destroy();
      fail(error.message.split('\n')[0] ?? 'malformed XML');
    };
    const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 64 * 1024 });
    stream.on('data', (chunk) => {
      try {
        parser.write(chunk as string);
      } catch {
        // Reported through onerror.
      }
    });
    stream.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    stream.once('end', () => {
      try {
        parser.close();
      } catch {
        return;
      }
      if (!sawRoot) {
        fail('no XML element');
        return;
      }
      into.counts.duration_ms += fileDuration * 1000;
      into.files.push(path);
      resolve();
    });
  });
}

/**
 * Reads every report the globs match (relative to `cwd`), in a stable order, each file once.
 * A glob that matches nothing is a warning; a file that is not JUnit XML is an InputError naming
 * it. Undefined when no file matched.
 */
export async function readJUnitReports(
  globs: string[],
  warn: (message: string) => void,
  cwd: string = process.cwd(),
): Promise<TestResults | undefined> {
  const files = await matchingFiles(globs, cwd, (pattern) => {
    warn(`No JUnit report matches ${pattern}`);
  });
  if (files.size === 0) return undefined;
  const results: TestResults = {
    counts: { total: 0, passed: 0, failed: 0, errors: 0, skipped: 0, duration_ms: 0 },
    failures: [],
    located: [],
    files: [],
    cases: new CaseTable(),
  };
  for (const file of files) await readReport(file, results);
  results.counts.duration_ms = Math.round(results.counts.duration_ms);
  return results;
}
