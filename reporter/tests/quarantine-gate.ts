import type { QuarantinedTest } from '../../contract/tests/quarantine.js';
import { testIdentity, testIdText } from '../../contract/tests/test-id.js';
import type { StatsClient } from '../client.js';
import type { CaseTable } from './case-table.js';

/** A test the run's reports say failed (every attempt of it failed or errored). */
export interface FailedTest {
  id: string;
  suite: string;
  name: string;
}

/** What `--quarantine` found: the run's failures split by the project's quarantine list. */
export interface QuarantineGate {
  /** Failed tests that are quarantined: they do not fail the build. */
  quarantined: (FailedTest & { reason: string })[];
  /** Failed tests that are not: any one keeps the build red. */
  failing: FailedTest[];
  /** Why the list could not be read: then every failure counts (none is hidden). */
  unavailable?: string;
}

/** A test's id in the API, as the server computes it (contract/tests/test-id.ts). */
export function testKeyOf(test: Parameters<typeof testIdentity>[0]): string {
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash('sha256')
    .update(testIdText(testIdentity(test)))
    .digest('base64url')
    .slice(0, 16);
}

/**
 * The run's failed tests, merged by identity as the server merges them: a test reported several
 * times (retries) failed only when no attempt of it passed; a skip does not count.
 */
export function failedTests(cases: CaseTable): FailedTest[] {
  const failed = new Map<string, FailedTest>();
  const passed = new Set<string>();
  for (let i = 0; i < cases.size; i++) {
    const test = cases.get(i);
    if (test.status === 'skipped') continue;
    const id = testKeyOf(test);
    if (test.status === 'passed') passed.add(id);
    else if (!failed.has(id)) failed.set(id, { id, suite: test.suite, name: test.name });
  }
  return [...failed.values()].filter((test) => !passed.has(test.id));
}

/** The failures split by the list; without a list (`unavailable`), every failure is failing. */
export function judgeQuarantine(
  failed: readonly FailedTest[],
  list: readonly QuarantinedTest[] | { unavailable: string },
): QuarantineGate {
  if (!Array.isArray(list)) {
    return {
      quarantined: [],
      failing: [...failed],
      unavailable: (list as { unavailable: string }).unavailable,
    };
  }
  const reasons = new Map(list.map((entry) => [entry.id, entry.reason]));
  const gate: QuarantineGate = { quarantined: [], failing: [] };
  for (const test of failed) {
    const reason = reasons.get(test.id);
    if (reason === undefined) gate.failing.push(test);
    else gate.quarantined.push({ ...test, reason });
  }
  return gate;
}

/** Whether the gate turns the run green: it had failures, and every one is quarantined. */
export const allQuarantined = (gate: QuarantineGate | undefined): boolean =>
  gate !== undefined && gate.failing.length === 0 && gate.quarantined.length > 0;

const label = (test: FailedTest) => (test.suite ? `${test.suite} › ${test.name}` : test.name);
/** Failing tests named in a line, at most this many (the rest counted). */
const NAMED = 10;

/**
 * The lines the step prints: one per quarantined failure, then the verdict. `red` is true when
 * the build must fail (a failure that is not quarantined, or no list to judge by).
 */
export function gateLines(gate: QuarantineGate): { lines: string[]; red: boolean } {
  const lines = gate.quarantined.map(
    (test) => `quarantined: ${label(test)} failed (quarantined: ${test.reason})`,
  );
  if (gate.failing.length === 0) {
    if (gate.quarantined.length > 0) {
      lines.push(
        `${gate.quarantined.length} failed test(s), all quarantined: the build is reported green`,
      );
    }
    return { lines, red: false };
  }
  const named = gate.failing.slice(0, NAMED).map(label).join(', ');
  const more = gate.failing.length > NAMED ? ` and ${gate.failing.length - NAMED} more` : '';
  const why = gate.unavailable
    ? ` (the quarantine list could not be read: ${gate.unavailable})`
    : ' not quarantined';
  lines.push(`${gate.failing.length} failed test(s)${why}: ${named}${more}`);
  return { lines, red: true };
}

/**
 * `--quarantine`: the run's failed tests judged against the project's list, read from the
 * server once. No list (unreachable, refused, a dry run) hides nothing: every failure counts.
 */
export async function quarantineGate(
  client: StatsClient,
  projectId: string,
  cases: CaseTable,
): Promise<QuarantineGate> {
  const failed = failedTests(cases);
  if (failed.length === 0) return { quarantined: [], failing: [] };
  if (!client.quarantined)
    return judgeQuarantine(failed, { unavailable: 'a dry run does not read it' });
  try {
    return judgeQuarantine(failed, await client.quarantined(projectId));
  } catch (error) {
    return judgeQuarantine(failed, { unavailable: (error as Error).message });
  }
}
