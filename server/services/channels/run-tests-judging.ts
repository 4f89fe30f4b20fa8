import { hearsOfBuilds } from '../../domain/channels/channel-rules.js';
import { buildKeyOf, buildTestsKey } from '../../domain/channels/event-summary.js';
import {
  type NamedTests,
  RUN_TEST_NAME_LENGTH,
  RUN_TESTS_NAMED,
  type RunTests,
} from '../../domain/channels/run-tests.js';
import { newRecordId } from '../../domain/ids.js';
import { runFailureKinds } from '../../domain/tests/run-failures.js';
import { analyseTests, defaultBranch } from '../../domain/tests/test-analysis.js';
import type { ChannelRunUpdateJob } from '../../outbox/outbox-jobs.js';
import type { Storage } from '../../storage/storage.js';
import type { StoredTest } from '../../storage/tests/test-repository.js';
import { resultsFor } from '../tests/analysed-runs.js';
import { MAX_RUNS } from '../tests/test-query-service.js';
import { RUN_FACTS_DAYS } from './run-facts-judging.js';

const DAY_MS = 86_400_000;

const nameOf = (test: StoredTest) => {
  const name = [test.suite, test.classname, test.name].filter((part) => part).join(' › ');
  return name.length <= RUN_TEST_NAME_LENGTH ? name : `${name.slice(0, RUN_TEST_NAME_LENGTH - 1)}…`;
};

/**
 * The judging of a build's test results for its messages (the `run-tests` job, queued by each
 * ingest-tests batch in a project whose channels hear of builds): the runs of the batch's event,
 * or of its build and attempt when it named no event (then kept under `build:<key>`, and the
 * messages last sent for that build and attempt updated). The event's runs (usually one: the reporter's step) are judged among the project's newest
 * 1,000 runs as get-test-runs judges a run (docs/tests.md): its new failures and its flaky
 * failures. A flaky failure is listed as flaky only (it is no news that a flaky test failed);
 * the others are new, or other. When that changed, it is stored (run_tests) and each channel
 * that hears of builds is queued a run update for the event's messages, in one transaction.
 */
export function runTestsJudging(storage: Pick<Storage, 'tests' | 'channels' | 'transaction'>) {
  return async (
    projectId: string,
    target: { eventId: string } | { buildKey: string },
  ): Promise<void> => {
    const runs = await storage.tests.runs(projectId, {}, MAX_RUNS);
    const mine = runs.filter((run) =>
      'eventId' in target
        ? run.eventId === target.eventId
        : buildKeyOf(run.buildId, run.attempt) === target.buildKey,
    );
    // Kept under the event, or under the build when the results came without one.
    const testsKey = 'eventId' in target ? target.eventId : buildTestsKey(target.buildKey);
    if (mine.length === 0) return;
    const results = await resultsFor(storage, runs, 'flagged');
    const branch = defaultBranch(runs);
    const kindsOf = runFailureKinds(runs, results, branch, analyseTests(runs, results, branch));
    const news = new Set<number>();
    const flaky = new Set<number>();
    const failed = new Set<number>();
    for (const run of mine) {
      const kinds = kindsOf(run.id);
      for (const id of kinds.failed) failed.add(id);
      for (const id of kinds.news) news.add(id);
      for (const id of kinds.flaky) flaky.add(id);
    }
    const newOnes = [...news].filter((id) => !flaky.has(id));
    const others = [...failed].filter((id) => !flaky.has(id) && !news.has(id));
    // A few of each, by name (sorted here: the same on both backends).
    const names = new Map(
      (await storage.tests.tests(projectId, [...failed])).map((test) => [test.id, test]),
    );
    const list = (ids: number[]): NamedTests => {
      const tests = ids
        .flatMap((id) => {
          const test = names.get(id);
          return test ? [{ id: test.key, name: nameOf(test) }] : [];
        })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
      return { tests: tests.slice(0, RUN_TESTS_NAMED), count: ids.length };
    };
    const sum = (pick: (run: (typeof mine)[number]) => number) =>
      mine.reduce((n, run) => n + pick(run), 0);
    const tests: RunTests = {
      total: sum((r) => r.passed + r.failed + r.errors + r.skipped),
      passed: sum((r) => r.passed),
      failed: sum((r) => r.failed),
      errors: sum((r) => r.errors),
      skipped: sum((r) => r.skipped),
      passedOnRetry: sum((r) => r.flaky),
      durationMs: sum((r) => r.durationMs),
      newFailures: list(newOnes),
      flakyFailures: list([...flaky]),
      otherFailures: list(others),
    };
    const json = JSON.stringify(tests);
    if (json === (await storage.channels.runTests(projectId, testsKey))) return;
    const channels = (await storage.channels.list(projectId)).filter(hearsOfBuilds);
    const now = Date.now();
    await storage.transaction(async (tx) => {
      await tx.channels.storeRunTests(
        projectId,
        testsKey,
        json,
        now,
        now - RUN_FACTS_DAYS * DAY_MS,
      );
      for (const channel of channels) {
        const job: ChannelRunUpdateJob = {
          kind: 'channel-run-update',
          channelId: channel.id,
          projectId,
          ...target,
          messageId: `msg_${newRecordId()}`,
        };
        await tx.outbox.enqueue(job);
      }
    });
  };
}

export type RunTestsJudging = ReturnType<typeof runTestsJudging>;
