import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestCase } from '../../../contract/tests/ingest-tests.js';
import { readJUnitReports } from '../../../reporter/junit.js';
import { CaseTable } from '../../../reporter/tests/case-table.js';
import { readCtrfReports } from '../../../reporter/tests/ctrf.js';

/** Every test case of each real report flavour, retries included, exactly as it is sent. */

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'tests');
const none = () => undefined;

async function junitCases(file: string): Promise<TestCase[]> {
  const results = await readJUnitReports([file], none, FIXTURES);
  return [...(results?.cases?.batches() ?? [])].flat();
}

async function ctrfCases(file: string): Promise<TestCase[]> {
  const results = await readCtrfReports([file], none, undefined, FIXTURES);
  return [...(results?.cases?.batches() ?? [])].flat();
}

describe('JUnit XML', () => {
  it('Surefire: flakyFailure is a pass after a failed attempt, rerunFailure failed attempts', async () => {
    expect(await junitCases('surefire-flaky.xml')).toEqual([
      {
        suite: 'com.example.CartTest',
        classname: 'com.example.CartTest',
        name: 'addsItem',
        duration_ms: 12,
        status: 'passed',
      },
      {
        suite: 'com.example.CartTest',
        classname: 'com.example.CartTest',
        name: 'appliesDiscount',
        duration_ms: 410,
        status: 'passed',
        attempts: 2,
      },
      {
        suite: 'com.example.CartTest',
        classname: 'com.example.CartTest',
        name: 'checksOut',
        duration_ms: 1500,
        status: 'failed',
        message: 'Connection refused',
        attempts: 3,
      },
    ]);
  });

  it('pytest with reruns: each attempt a case (merged by the server), file and line kept', async () => {
    expect(await junitCases('pytest-reruns.xml')).toEqual([
      {
        suite: 'pytest',
        classname: 'tests.test_api',
        name: 'test_fetch',
        file: 'tests/test_api.py',
        line: 11,
        duration_ms: 100,
        status: 'failed',
        message: 'TimeoutError: read timed out',
      },
      {
        suite: 'pytest',
        classname: 'tests.test_api',
        name: 'test_fetch',
        file: 'tests/test_api.py',
        line: 11,
        duration_ms: 50,
        status: 'passed',
      },
      {
        suite: 'pytest',
        classname: 'tests.test_api',
        name: 'test_add[1-2]',
        file: 'tests/test_api.py',
        line: 20,
        duration_ms: 1,
        status: 'passed',
      },
      {
        suite: 'pytest',
        classname: 'tests.test_api',
        name: 'test_add[2-3]',
        file: 'tests/test_api.py',
        line: 20,
        duration_ms: 2,
        status: 'failed',
        message: 'assert 5 == 6',
      },
      {
        suite: 'pytest',
        classname: 'tests.test_api',
        name: 'test_windows',
        file: 'tests/test_api.py',
        line: 30,
        duration_ms: 0,
        status: 'skipped',
      },
    ]);
  });

  it('jest-junit: a failure without a message attribute gives its first line', async () => {
    expect(await junitCases('jest-junit.xml')).toEqual([
      {
        suite: 'src/sum.test.ts',
        classname: 'sum adds',
        name: 'sum adds',
        duration_ms: 4,
        status: 'passed',
      },
      {
        suite: 'src/sum.test.ts',
        classname: 'sum overflows',
        name: 'sum overflows',
        duration_ms: 20,
        status: 'failed',
        message: 'Error: expect(received).toBe(expected)',
      },
      {
        suite: 'src/sum.test.ts',
        classname: 'sum later',
        name: 'sum later',
        duration_ms: 0,
        status: 'skipped',
      },
    ]);
  });

  it('Playwright: the final attempt, its message attribute', async () => {
    expect(await junitCases('playwright.xml')).toEqual([
      {
        suite: 'login.spec.ts',
        classname: 'login.spec.ts',
        name: 'login › shows the form',
        duration_ms: 800,
        status: 'passed',
      },
      {
        suite: 'login.spec.ts',
        classname: 'login.spec.ts',
        name: 'login › signs in',
        duration_ms: 2300,
        status: 'failed',
        message: 'login.spec.ts:12:5 signs in',
      },
    ]);
  });
});

describe('CTRF', () => {
  it('Playwright: retries are attempts, flaky a pass after failures, pending skipped', async () => {
    expect(await ctrfCases('playwright.ctrf.json')).toEqual([
      {
        suite: 'chromium > login.spec.ts > login',
        name: 'login › shows the form',
        file: 'tests/login.spec.ts',
        line: 5,
        duration_ms: 812,
        status: 'passed',
      },
      {
        suite: 'chromium > login.spec.ts > login',
        name: 'login › signs in',
        file: 'tests/login.spec.ts',
        line: 12,
        duration_ms: 2301,
        status: 'failed',
        message: 'Error: Timed out 5000ms waiting for expect(locator).toBeVisible()',
        attempts: 2,
      },
      {
        suite: 'chromium > cart.spec.ts > cart',
        name: 'cart › adds',
        file: 'tests/cart.spec.ts',
        duration_ms: 420,
        status: 'passed',
        attempts: 3,
      },
      {
        suite: 'chromium > cart.spec.ts > cart',
        name: 'cart › later',
        file: 'tests/cart.spec.ts',
        duration_ms: 0,
        status: 'skipped',
      },
    ]);
  });

  it('jest: flaky without a retry count is two attempts; other is an error with its trace', async () => {
    const results = await readCtrfReports(['jest.ctrf.json'], none, undefined, FIXTURES);
    expect([...(results?.cases?.batches() ?? [])].flat()).toEqual([
      { suite: 'sum', name: 'sum adds', duration_ms: 4, status: 'passed', attempts: 2 },
      {
        suite: 'sum',
        name: 'sum times out',
        duration_ms: 5000,
        status: 'error',
        message: 'thrown: Exceeded timeout of 5000 ms',
      },
    ]);
    expect(results?.counts).toEqual({
      total: 2,
      passed: 1,
      failed: 0,
      errors: 1,
      skipped: 0,
      duration_ms: 5004,
    });
  });

  it('adds to the JUnit reports read before, and names a file that is no CTRF report', async () => {
    const junit = await readJUnitReports(['jest-junit.xml'], none, FIXTURES);
    const both = await readCtrfReports(['jest.ctrf.json'], none, junit, FIXTURES);
    expect(both?.cases?.size).toBe(5);
    expect(both?.counts.total).toBe(5);
    await expect(readCtrfReports(['jest-junit.xml'], none, undefined, FIXTURES)).rejects.toThrow(
      /jest-junit\.xml is not a readable CTRF report/,
    );
  });
});

describe('CaseTable', () => {
  it('gives the cases back in batches of at most 5,000, in order, names cut to the limits', () => {
    const table = new CaseTable();
    for (let i = 0; i < 12_001; i++) {
      table.add({
        suite: 's',
        name: `t${i}`,
        duration_ms: i,
        status: i % 7 === 0 ? 'failed' : 'passed',
      });
    }
    table.add({ suite: 'x'.repeat(600), name: 'n'.repeat(1200), duration_ms: 1, status: 'passed' });
    const batches = [...table.batches()];
    expect(batches.map((b) => b.length)).toEqual([5000, 5000, 2002]);
    expect(batches[1]?.[3]).toEqual({
      suite: 's',
      name: 't5003',
      duration_ms: 5003,
      status: 'passed',
    });
    expect(batches[0]?.[7]?.status).toBe('failed');
    const last = batches[2]?.at(-1);
    expect(last?.suite.length).toBe(500);
    expect(last?.name.length).toBe(1000);
  });
});
