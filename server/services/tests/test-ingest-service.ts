import {
  type IngestTestsRequest,
  type IngestTestsResponse,
  TESTS_INGESTED,
} from '../../../contract/tests/ingest-tests.js';
import { buildKeyOf } from '../../domain/channels/event-summary.js';
import { resultsOf } from '../../domain/tests/test-batch.js';
import { runIdOf } from '../../domain/tests/test-identity.js';
import type { OutboxJob } from '../../outbox/outbox-jobs.js';
import type { KeyOwner, Storage } from '../../storage/storage.js';
import type { Answer, Idempotency } from '../idempotency-service.js';
import type { ProjectAccess } from '../project-access.js';
import { TestsPacing } from './tests-pacing.js';

/**
 * What the project's channels hear of that test results change (a cached read): newly flaky
 * tests (`flaky`), and builds, whose messages tell their run's tests (`builds`).
 */
export type TestsWatched = (projectId: string) => Promise<{ flaky: boolean; builds: boolean }>;

/**
 * POST /stats/ingest-tests: a batch of a run's test cases, stored once per Idempotency-Key,
 * answered once durable. Ingest keys may send tests (to their projects). When a channel of the
 * project hears of newly flaky tests, a flaky check is queued in the batch's transaction (so an
 * acknowledged batch is always judged), and judged by the outbox, off this path; when one hears
 * of builds, so is the judging of the run's tests for that build's messages (found by the batch's
 * event, else by its build id and attempt). Batches are stored one at a time, giving way to other
 * requests (`pacing`, tests-pacing.ts); their tests' summaries and day rows are kept behind them
 * (`stored` wakes the upkeep: test-upkeep-worker.ts).
 */
export function testIngestService(
  storage: Storage,
  access: ProjectAccess,
  idempotency: Idempotency,
  watched: TestsWatched = async () => ({ flaky: false, builds: false }),
  pacing: TestsPacing = new TestsPacing(),
  stored: () => void = () => undefined,
) {
  return {
    async ingest(
      caller: KeyOwner,
      body: IngestTestsRequest,
      key: string | undefined,
      /** The batch's cost before the service (its body read, parsed, validated): for the pacing. */
      preparedMs = 0,
    ): Promise<Answer<IngestTestsResponse>> {
      await access.assertOwn(caller, body.projectId);
      const attempt = body.attempt ?? 1;
      const run = {
        projectId: body.projectId,
        key: runIdOf(body.buildId, attempt),
        buildId: body.buildId,
        attempt,
        commit: body.commit ?? null,
        branch: body.branch ?? null,
        pullRequest: body.pullRequest ?? null,
        eventId: body.eventId ?? null,
      };
      const response = { message: TESTS_INGESTED, runId: run.key, cases: body.cases.length };
      // The cases' identities are made in the batch's paced turn: a tenth of its work.
      const batchOf = () => ({ run, results: resultsOf(body.cases), at: Date.now() });
      const watching = await watched(body.projectId);
      const jobs: OutboxJob[] = [];
      if (watching.flaky) jobs.push({ kind: 'flaky-check', projectId: body.projectId });
      if (watching.builds) {
        // Without the event, the build and attempt name the run its messages were sent for.
        jobs.push(
          body.eventId
            ? { kind: 'run-tests', projectId: body.projectId, eventId: body.eventId }
            : {
                kind: 'run-tests',
                projectId: body.projectId,
                buildKey: buildKeyOf(run.buildId, attempt),
              },
        );
      }
      const answer = await idempotency.once(
        caller.accountId,
        key,
        { endpoint: 'tests', body },
        response,
        (claim) =>
          pacing.run(() => {
            const batch = batchOf();
            return jobs.length > 0
              ? storage.transaction(async (tx) => {
                  const stored = await tx.tests.ingest(batch, claim);
                  if (stored.stored) for (const job of jobs) await tx.outbox.enqueue(job);
                  return stored;
                })
              : storage.tests.ingest(batch, claim);
          }, preparedMs),
      );
      stored();
      return answer;
    },
    pacing,
  };
}

export type TestIngestService = ReturnType<typeof testIngestService>;
