import type { EventSummary } from './event-summary.js';

/**
 * What a build's test results say (issue 30's "test counts with new and flaky failures"): the
 * results sent with `ingest-tests` for the build's event (its `eventId`), judged as the Tests
 * feature judges them (docs/tests.md): the counts, and the failures split into new ones (the
 * test's latest earlier result on the flip branch was a pass), known flaky ones (flaky over the
 * project's newest 1,000 runs) and the others. Stored per event (table run_tests) and read when
 * a build message is sent; judged again when more results arrive, the message sent again.
 */
export interface RunTests {
  total: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  /** Passed after failed attempts. */
  passedOnRetry: number;
  durationMs: number;
  /** Failed, and not flaky: passed the run before on the base (flip) branch. */
  newFailures: NamedTests;
  /** Failed, and known to be flaky. */
  flakyFailures: NamedTests;
  /** Every other failure (failing before, or new tests). */
  otherFailures: NamedTests;
}

/** A few tests (the first by name), and how many in all. */
export interface NamedTests {
  tests: { id: string; name: string }[];
  count: number;
}

/** Each list keeps this many names; a message shows them, then `… and N more`. */
export const RUN_TESTS_NAMED = 5;
/**
 * A name is cut to this many characters: five of them, their bullets and `… and N more` fit in
 * one Discord field (1,024 characters), so the count of the rest is never cut away.
 */
export const RUN_TEST_NAME_LENGTH = 190;

/** Whether two judgements of a run's tests would make the same message. */
export const sameTests = (a: RunTests | null | undefined, b: RunTests | null | undefined) =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * A build's summary with its event's test findings (`stored`: the run_tests JSON). Alerts,
 * digests, flaky news and releases are left as they are.
 */
export function withRunTests(event: EventSummary, stored: string | undefined): EventSummary {
  if (stored === undefined || !event.eventId) return event;
  if (event.alert || event.digest || event.flaky || event.release) return event;
  return { ...event, runTests: JSON.parse(stored) as RunTests };
}

/** The new failures, then the known flaky ones, then the others: each a few names and a count. */
export function failureGroups(tests: RunTests): FailureList[] {
  const groups: [string, NamedTests][] = [
    ['New failures', tests.newFailures],
    ['Known flaky', tests.flakyFailures],
    ['Other failures', tests.otherFailures],
  ];
  return groups
    .filter(([, named]) => named.count > 0)
    .map(([title, named]) => ({
      title: `${title} (${named.count})`,
      names: named.tests.map((test) => test.name),
      more: Math.max(0, named.count - named.tests.length),
    }));
}

/** A titled list of tests a message shows: `names`, then `… and <more> more`. */
export interface FailureList {
  title: string;
  names: string[];
  more: number;
}
