import { digestFacts } from '../digest-facts.js';
import type { EventSummary, TestSummary } from '../event-summary.js';
import { regressionLines, runDurationText } from '../run-facts.js';
import { type FailureList, failureGroups } from '../run-tests.js';

/** What every platform's message says, before its own format: the same words everywhere. */

export interface Look {
  /** `Failed`, `Passed`, `Released`…: the status's word. */
  word: string;
  emoji: string;
  color: number;
  /** Adaptive Cards' named colour. */
  teamsColor: 'good' | 'attention' | 'warning' | 'accent' | 'default';
}

const LOOKS: Record<string, Look> = {
  success: { word: 'Passed', emoji: '✅', color: 0x2ea043, teamsColor: 'good' },
  failure: { word: 'Failed', emoji: '❌', color: 0xcf222e, teamsColor: 'attention' },
  cancelled: { word: 'Cancelled', emoji: '⚪', color: 0x6e7781, teamsColor: 'default' },
};
const RELEASE: Look = { word: 'Released', emoji: '🚀', color: 0x8250df, teamsColor: 'accent' };
const FLAKY: Look = { word: 'Newly flaky', emoji: '🎲', color: 0xbf8700, teamsColor: 'warning' };
const ALERT: Look = { word: 'Regression', emoji: '📉', color: 0xd73a49, teamsColor: 'attention' };

export function lookOf(event: EventSummary): Look {
  if (event.digest) {
    const word = event.digest.every === 'day' ? 'Daily digest' : 'Weekly digest';
    return { word, emoji: '📊', color: 0x5865f2, teamsColor: 'accent' };
  }
  if (event.alert) return ALERT;
  if (event.flaky) return FLAKY;
  if (event.release) return RELEASE;
  const known = event.status ? LOOKS[event.status] : undefined;
  if (known) return known;
  const word = event.status ?? event.eventType;
  return {
    word: word.charAt(0).toUpperCase() + word.slice(1),
    emoji: '🔔',
    color: 0x5865f2,
    teamsColor: 'default',
  };
}

/** `Failed · web · CI · test` or `Released v1.2.0 · web`. */
export function titleOf(event: EventSummary): string {
  const look = lookOf(event);
  if (event.alert) return `${look.emoji} ${look.word}: ${event.alert.key} · ${event.projectName}`;
  if (event.digest) return `${look.emoji} ${look.word} · ${event.projectName}`;
  if (event.flaky) {
    const n = event.flaky.tests.length + event.flaky.more;
    return `${look.emoji} ${look.word}: ${n} test${n === 1 ? '' : 's'} · ${event.projectName}`;
  }
  if (event.release) {
    const what = event.release.version ?? event.release.name ?? event.eventType;
    return `${look.emoji} ${look.word} ${what} · ${event.projectName}`;
  }
  const change =
    event.previousStatus && event.previousStatus !== event.status && event.status === 'success'
      ? ' (fixed)'
      : event.previousStatus === 'success' && event.status === 'failure'
        ? ' (broken)'
        : '';
  const job = event.job ? ` · ${event.job}` : '';
  return `${look.emoji} ${look.word}${change} · ${event.projectName}${job}`;
}

export const shortSha = (commit: string): string =>
  /^[0-9a-f]{12,}$/i.test(commit) ? commit.slice(0, 7) : commit;

/** `120 passed (1 on retry), 2 failed, 1 error, 3 skipped of 126 in 42 s`. */
export function testLine(tests: Omit<TestSummary, 'failures'>, onRetry = 0): string {
  const parts = [`${tests.passed} passed${onRetry > 0 ? ` (${onRetry} on retry)` : ''}`];
  if (tests.failed) parts.push(`${tests.failed} failed`);
  if (tests.errors) parts.push(`${tests.errors} error${tests.errors === 1 ? '' : 's'}`);
  if (tests.skipped) parts.push(`${tests.skipped} skipped`);
  const time = tests.durationMs === null ? '' : ` in ${duration(tests.durationMs)}`;
  return `${parts.join(', ')} of ${tests.total}${time}`;
}

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Shortens `text` to `max` characters, marking the cut with an ellipsis. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(max - 1, 0))}…`;
}

/** The facts every format shows, label and value (plain text) with a link where there is one. */
export interface Fact {
  label: string;
  value: string;
  url: string | null;
}

export function factsOf(event: EventSummary): Fact[] {
  if (event.digest) return digestFacts(event.digest);
  const facts: Fact[] = [];
  if (event.alert) {
    const a = event.alert;
    facts.push({ label: 'Value', value: String(a.value), url: null });
    facts.push({ label: `Limit (${a.side})`, value: String(a.limit), url: null });
    facts.push({
      label: 'Baseline',
      value: a.baseline === null ? 'none' : String(a.baseline),
      url: null,
    });
  }
  if (event.release) {
    const r = event.release;
    if (r.version) facts.push({ label: 'Version', value: r.version, url: r.url });
    if (r.name && r.name !== r.version) facts.push({ label: 'Name', value: r.name, url: null });
  }
  if (event.branch) facts.push({ label: 'Branch', value: event.branch, url: null });
  if (event.commit) {
    facts.push({ label: 'Commit', value: shortSha(event.commit), url: event.commitUrl });
  }
  if (event.runUrl || event.buildNumber) {
    facts.push({
      label: 'Run',
      value: `${event.buildNumber ? `#${event.buildNumber}` : 'Open the run'}${attempt(event)}`,
      url: event.runUrl,
    });
  }
  // The stored results, when they have arrived, tell more than the event's counts.
  const results = event.runTests;
  if (results) {
    facts.push({ label: 'Tests', value: testLine(results, results.passedOnRetry), url: null });
  } else if (event.tests) {
    facts.push({ label: 'Tests', value: testLine(event.tests), url: null });
  }
  if (event.facts?.duration) {
    facts.push({ label: 'Duration', value: runDurationText(event.facts.duration), url: null });
  }
  return facts;
}

/**
 * The run's regressions as a titled list (`Regressions (7)`, the largest changes first, then
 * `… and N more`), or null when its metrics showed none.
 */
export function regressionsOf(event: EventSummary): { title: string; lines: string[] } | null {
  const facts = event.facts;
  if (!facts || facts.regressionCount === 0) return null;
  return { title: `Regressions (${facts.regressionCount})`, lines: regressionLines(facts) };
}

/** The failures a build message lists: the event's first failed tests. */
const FAILURES_SHOWN = 10;

/**
 * The failed tests a build message lists, each list titled: once the run's test results have
 * arrived, its new failures, its known flaky ones and the others apart (a few names each);
 * before, the first failed tests the event's payload names.
 */
export function failureListsOf(event: EventSummary): FailureList[] {
  if (event.runTests) return failureGroups(event.runTests);
  const names = (event.tests?.failures ?? []).slice(0, FAILURES_SHOWN);
  if (names.length === 0) return [];
  const failed = (event.tests?.failed ?? 0) + (event.tests?.errors ?? 0);
  return [{ title: 'Failed tests', names, more: Math.max(0, failed - names.length) }];
}

/**
 * A failure list's lines: each name after `bullet`, then `… and N more`, itself a list item in
 * Markdown lists (Teams: `- `), a plain line under bullets typed as text (Discord, Slack: `• `).
 */
export function failureLines(
  list: FailureList,
  bullet: '• ' | '- ',
  name: (text: string) => string = (text) => text,
): string[] {
  const lines = list.names.map((text) => `${bullet}${name(text)}`);
  if (list.more > 0) lines.push(`${bullet === '- ' ? bullet : ''}… and ${list.more} more`);
  return lines;
}

/** ` (attempt 2)` for a re-run, so an edited message says which attempt it tells of. */
const attempt = (event: EventSummary): string => {
  const n = event.run?.attempt;
  return n && n > 1 ? ` (attempt ${n})` : '';
};

/** The text under the title: the description, or a release's notes (first lines). */
export function bodyOf(event: EventSummary): string | null {
  const notes = event.release?.notes;
  if (notes) return notes.split('\n').slice(0, 8).join('\n');
  return event.description;
}

/** A sample build, for test-channel: what a failed build with tests looks like. */
export function sampleEvent(projectId: string, projectName: string, pageUrl: string | null) {
  return {
    projectId,
    projectName,
    eventType: 'build',
    description: 'A sample message from ci-stats: this channel is connected.',
    status: 'failure',
    previousStatus: 'success',
    branch: 'main',
    commit: '4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39',
    commitUrl: null,
    repository: null,
    job: 'CI · test',
    runUrl: null,
    buildNumber: '42',
    tests: {
      total: 120,
      passed: 117,
      failed: 2,
      errors: 0,
      skipped: 1,
      durationMs: 42_000,
      failures: ['checkout › applies the discount', 'checkout › rounds the total'],
    },
    // As the run's test results tell it once they arrive: the new failure and the flaky one.
    runTests: {
      total: 120,
      passed: 117,
      failed: 2,
      errors: 0,
      skipped: 1,
      passedOnRetry: 1,
      durationMs: 42_000,
      newFailures: {
        tests: [{ id: 'sample-1', name: 'checkout › applies the discount' }],
        count: 1,
      },
      flakyFailures: { tests: [{ id: 'sample-2', name: 'checkout › rounds the total' }], count: 1 },
      otherFailures: { tests: [], count: 0 },
    },
    release: null,
    createdAt: new Date().toISOString(),
    pageUrl,
  } satisfies EventSummary;
}
