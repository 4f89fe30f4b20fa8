import { wants } from '../../domain/channels/channel-rules.js';
import type { EventSummary, FlakySummary } from '../../domain/channels/event-summary.js';
import { newRecordId } from '../../domain/ids.js';
import { analyseTests, defaultBranch, type TestSummary } from '../../domain/tests/test-analysis.js';
import type { Storage } from '../../storage/storage.js';
import type { StoredTest, StoredTestRun } from '../../storage/tests/test-repository.js';
import { resultsFor } from '../tests/analysed-runs.js';
import { MAX_RUNS } from '../tests/test-query-service.js';

/** A message lists this many of the tests that became flaky, the flakiest first. */
export const FLAKY_LISTED = 10;

const nameOf = (test: StoredTest) =>
  [test.suite, test.classname, test.name].filter((part) => part).join(' › ');

/**
 * The flaky check (the `flaky` rule): run by the outbox after a batch of test results was
 * stored for a project one of whose channels asks for it. Flakiness is judged as get-tests'
 * `sort=flaky` judges it by default (the newest 1,000 runs, flips on the default branch); a test
 * flaky now and not at the project's last check became flaky since. The first check of a project
 * has no last check: it compares with the runs before the newest, so a project's tests already
 * flaky are not announced as new. Taking the check (moving its count only from the value read),
 * recording the tests flaky now and queuing one message per channel that wants it are one
 * transaction: with several processes, each change is announced once; should the server stop
 * before, the job runs again.
 */
export function flakyCheck(
  storage: Pick<Storage, 'tests' | 'channels' | 'projects' | 'transaction'>,
  publicUrl: string | undefined,
) {
  return async (projectId: string): Promise<number> => {
    const known = await storage.tests.flakyKnown(projectId);
    const runs = await storage.tests.runs(projectId, {}, MAX_RUNS);
    const newest = runs.at(-1);
    if (!newest) return 0;
    // Only the flagged tests can be flaky, now or before the newest run (analysed-runs.ts).
    const results = await resultsFor(storage, runs, 'flagged');
    const branch = defaultBranch(runs);
    const flakyIn = (summaries: Map<number, TestSummary>) =>
      [...summaries.values()].filter((summary) => summary.flaky);
    const now = flakyIn(analyseTests(runs, results, branch));
    const before = new Set(
      known.check !== null
        ? known.testIds
        : flakyIn(analyseTests(runs.slice(0, -1), results, branch)).map((s) => s.testId),
    );
    const became = now.filter((summary) => !before.has(summary.testId));
    const tests = new Map(
      (
        await storage.tests.tests(
          projectId,
          became.map((s) => s.testId),
        )
      ).map((t) => [t.id, t]),
    );
    // The flakiest first; ties by name, so a message reads the same on every backend.
    const ranked = became
      .flatMap((summary) => {
        const test = tests.get(summary.testId);
        return test ? [{ id: test.key, name: nameOf(test), score: summary.flakyScore }] : [];
      })
      .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const flaky: FlakySummary = {
      tests: ranked.slice(0, FLAKY_LISTED),
      more: Math.max(0, ranked.length - FLAKY_LISTED),
    };
    const channels = became.length === 0 ? [] : await storage.channels.list(projectId);
    const project = channels.length === 0 ? undefined : await storage.projects.find(projectId);
    const event = flakyEvent(projectId, project?.name ?? '', newest, flaky, publicUrl);
    const at = Date.now();
    const taken = await storage.transaction(async (tx) => {
      const took = await tx.tests.takeFlakyCheck(
        projectId,
        known.check,
        now.map((s) => s.testId),
        { at, testIds: became.map((s) => s.testId) },
      );
      if (!took) return false;
      for (const channel of channels.filter((c) => wants(c.rules, event))) {
        await tx.outbox.enqueue({
          kind: 'channel-message',
          channelId: channel.id,
          messageId: `msg_${newRecordId()}`,
          event,
        });
      }
      return true;
    });
    return taken ? became.length : 0;
  };
}

export type FlakyCheck = ReturnType<typeof flakyCheck>;

/** What a channel's message says of them: the run that showed it, and the tests. */
function flakyEvent(
  projectId: string,
  projectName: string,
  run: StoredTestRun,
  flaky: FlakySummary,
  publicUrl: string | undefined,
): EventSummary {
  const lines = flaky.tests.map((test) => `• ${test.name} (flaky score ${test.score})`);
  if (flaky.more > 0) lines.push(`… and ${flaky.more} more`);
  const attempt = run.attempt > 1 ? ` (attempt ${run.attempt})` : '';
  return {
    projectId,
    projectName,
    eventType: 'tests',
    description: `Flaky since build ${run.buildId}${attempt}:\n${lines.join('\n')}`,
    status: null,
    previousStatus: null,
    branch: run.branch,
    commit: run.commit,
    commitUrl: null,
    repository: null,
    job: null,
    runUrl: null,
    buildNumber: null,
    tests: null,
    release: null,
    createdAt: new Date(run.createdAt).toISOString(),
    pageUrl: publicUrl
      ? `${publicUrl}/dashboard/projects/${encodeURIComponent(projectId)}/tests`
      : null,
    run: null,
    alert: null,
    flaky,
  };
}
