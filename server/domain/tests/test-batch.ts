import type { TestCase } from '../../../contract/tests/ingest-tests.js';
import { type TestIdentity, testIdentity, testIdOf } from './test-identity.js';
import { isFailure, mergeStatus, STATUS_CODE } from './test-status.js';

/** One test's outcome in a batch, as stored. */
export interface TestResultInput {
  test: TestIdentity & { key: string; line: number | null };
  status: number;
  durationMs: number;
  attempts: number;
  /** The first failure message (failures only). */
  message: string | null;
}

/**
 * A batch's cases as results: one per test identity. A test that appears several times (each
 * retry reported as a case of its own: pytest-rerunfailures, Playwright, jest) is one result whose
 * attempts add up and whose status is merged (test-status.ts), so a retry that passed is a pass
 * with attempts > 1: flaky. Durations add up too (the time the test took in the run).
 */
export function resultsOf(cases: readonly TestCase[]): TestResultInput[] {
  const byKey = new Map<string, TestResultInput>();
  for (const c of cases) {
    const identity = testIdentity(c);
    const key = testIdOf(identity);
    const status = STATUS_CODE[c.status];
    const message = isFailure(status) ? c.message?.trim() || null : null;
    const result: TestResultInput = {
      test: { ...identity, key, line: c.line ?? null },
      status,
      durationMs: Math.round(c.duration_ms),
      attempts: c.attempts ?? 1,
      message,
    };
    const earlier = byKey.get(key);
    if (earlier === undefined) {
      byKey.set(key, result);
      continue;
    }
    earlier.status = mergeStatus(earlier.status, result.status);
    earlier.attempts += result.attempts;
    earlier.durationMs += result.durationMs;
    earlier.message ??= result.message;
    earlier.test.line ??= result.test.line;
  }
  return [...byKey.values()];
}
