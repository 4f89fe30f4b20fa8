import {
  type IngestTestsRequest,
  type IngestTestsResponse,
  TESTS_INGESTED,
} from '../../../contract/tests/ingest-tests.js';
import { resultsOf } from '../../domain/tests/test-batch.js';
import { runIdOf } from '../../domain/tests/test-identity.js';
import type { KeyOwner, Storage } from '../../storage/storage.js';
import type { Answer, Idempotency } from '../idempotency-service.js';
import type { ProjectAccess } from '../project-access.js';

/** Whether one of the project's channels hears of newly flaky tests (a cached read). */
export type FlakyWatched = (projectId: string) => Promise<boolean>;

/**
 * POST /stats/ingest-tests: a batch of a run's test cases, stored once per Idempotency-Key,
 * answered once durable. Ingest keys may send tests (to their projects). When a channel of the
 * project hears of newly flaky tests, a flaky check is queued in the batch's transaction (so an
 * acknowledged batch is always judged), and judged by the outbox, off this path.
 */
export function testIngestService(
  storage: Storage,
  access: ProjectAccess,
  idempotency: Idempotency,
  flakyWatched: FlakyWatched = async () => false,
) {
  return {
    async ingest(
      caller: KeyOwner,
      body: IngestTestsRequest,
      key: string | undefined,
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
      const batch = { run, results: resultsOf(body.cases), at: Date.now() };
      const watched = await flakyWatched(body.projectId);
      return idempotency.once(
        caller.accountId,
        key,
        { endpoint: 'tests', body },
        response,
        (claim) =>
          watched
            ? storage.transaction(async (tx) => {
                const stored = await tx.tests.ingest(batch, claim);
                if (stored.stored) {
                  await tx.outbox.enqueue({ kind: 'flaky-check', projectId: body.projectId });
                }
                return stored;
              })
            : storage.tests.ingest(batch, claim),
      );
    },
  };
}

export type TestIngestService = ReturnType<typeof testIngestService>;
