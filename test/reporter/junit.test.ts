import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../reporter/input-error.js';
import { MAX_FAILURES, readJUnitReports } from '../../reporter/junit.js';
import { tempDir } from '../helpers/server.js';

/** Real formats -> exact counts, durations and failures. */

const FIXTURES = join(import.meta.dirname, 'fixtures');
const read = (glob: string, warnings: string[] = []) =>
  readJUnitReports([glob], (warning) => warnings.push(warning), FIXTURES);

describe('readJUnitReports', () => {
  it.each([
    [
      'jest-junit',
      'junit/jest-junit.xml',
      { total: 6, passed: 4, failed: 1, errors: 0, skipped: 1, duration_ms: 4218 },
      [
        {
          suite: 'cart applies a coupon',
          name: 'cart applies a coupon',
          message: 'Error: expect(received).toBe(expected) // Object.is equality',
        },
      ],
    ],
    [
      'pytest',
      'junit/pytest.xml',
      { total: 7, passed: 3, failed: 1, errors: 1, skipped: 2, duration_ms: 1734 },
      [
        {
          suite: 'tests.test_api',
          name: 'test_create_user',
          message: 'AssertionError: assert 201 == 400',
        },
        {
          suite: 'tests.test_db',
          name: 'test_migrate',
          message: 'failed on setup with "psycopg.OperationalError: connection refused"',
        },
      ],
    ],
    [
      'Maven Surefire (a flaky test that passed on rerun counts as passed)',
      'junit/TEST-com.acme.billing.InvoiceServiceTest.xml',
      { total: 5, passed: 2, failed: 1, errors: 1, skipped: 1, duration_ms: 482 },
      [
        {
          suite: 'com.acme.billing.InvoiceServiceTest',
          name: 'roundsHalfEven',
          message: 'expected: <10.02> but was: <10.03>',
        },
        {
          suite: 'com.acme.billing.InvoiceServiceTest',
          name: 'loadsFromDatabase',
          message: 'Connection refused',
        },
      ],
    ],
    [
      'Gradle',
      'junit/gradle-TEST-com.acme.app.ParserTest.xml',
      { total: 4, passed: 2, failed: 1, errors: 0, skipped: 1, duration_ms: 87 },
      [
        {
          suite: 'com.acme.app.ParserTest',
          name: 'rejectsUnclosedBracket()',
          message: 'java.lang.AssertionError: Expected exception: com.acme.app.ParseException',
        },
      ],
    ],
    [
      'go-junit-report (no time on the root)',
      'junit/go-junit-report.xml',
      { total: 5, passed: 3, failed: 1, errors: 0, skipped: 1, duration_ms: 16 },
      [{ suite: 'github.com/acme/queue', name: 'TestVisibilityTimeout', message: 'Failed' }],
    ],
    [
      '.NET JunitXml.TestLogger',
      'junit/dotnet-junit-logger.xml',
      { total: 4, passed: 2, failed: 1, errors: 0, skipped: 1, duration_ms: 513 },
      [
        {
          suite: 'Acme.Orders.Tests.OrderTotalsTests',
          name: 'Total_AppliesDiscount(percent: 100)',
          message: 'Assert.Equal() Failure: Values differ',
        },
      ],
    ],
    [
      'nested suites without times; a case that errored and failed counts once, as failed',
      'junit/nested-no-times.xml',
      { total: 3, passed: 2, failed: 1, errors: 0, skipped: 0, duration_ms: 3500 },
      [{ suite: 'integration', name: 'c', message: 'Timeout after 30000 ms' }],
    ],
  ])('%s', async (_format, glob, counts, failures) => {
    const results = await read(glob);
    expect(results?.counts).toEqual(counts);
    expect(results?.failures).toEqual(failures);
    expect(results?.files).toEqual([join(FIXTURES, glob)]);
  });

  it('adds every matched report up, each file once however many globs match it', async () => {
    const results = await readJUnitReports(
      ['junit/*.xml', 'junit/pytest.xml'],
      () => undefined,
      FIXTURES,
    );
    expect(results?.files).toHaveLength(7);
    expect(results?.counts).toEqual({
      total: 34,
      passed: 18,
      failed: 7,
      errors: 2,
      skipped: 7,
      duration_ms: 4218 + 1734 + 482 + 87 + 16 + 513 + 3500,
    });
    expect(results?.failures).toHaveLength(9);
  });

  it('a glob that matches nothing is a warning', async () => {
    const warnings: string[] = [];
    expect(await read('reports/**/*.xml', warnings)).toBeUndefined();
    expect(warnings).toEqual(['No JUnit report matches reports/**/*.xml']);
  });

  it('a malformed report is an error naming the file', async () => {
    const error = await read('malformed.xml').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).input).toBe('junit-files');
    expect((error as Error).message).toContain(join(FIXTURES, 'malformed.xml'));
    expect((error as Error).message).toContain('is not a readable JUnit XML report');
  });

  const dir = tempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps at most 50 failures, each message its first line cut to 200 characters', async () => {
    const cases = Array.from(
      { length: 60 },
      (_, i) =>
        `<testcase classname="big" name="t${i}"><failure message="${'x'.repeat(300)}&#10;second line"/></testcase>`,
    );
    writeFileSync(join(dir, 'many.xml'), `<testsuite>${cases.join('')}</testsuite>`);
    const results = await readJUnitReports(['many.xml'], () => undefined, dir);
    expect(results?.counts.failed).toBe(60);
    expect(results?.failures).toHaveLength(MAX_FAILURES);
    expect(results?.failures[49]).toEqual({ suite: 'big', name: 't49', message: 'x'.repeat(200) });
  });

  it('an empty file or one that is not XML is an error too', async () => {
    writeFileSync(join(dir, 'empty.xml'), '');
    writeFileSync(join(dir, 'text.xml'), 'PASS all tests\n');
    for (const name of ['empty.xml', 'text.xml']) {
      const error = await readJUnitReports([name], () => undefined, dir).catch((e: Error) => e);
      expect((error as Error).message).toContain(join(dir, name));
    }
  });
});
