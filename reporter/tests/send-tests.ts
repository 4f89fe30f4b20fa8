import { Paths } from '../../contract/paths.js';
import type { IngestTestsRequest } from '../../contract/tests/ingest-tests.js';
import { TestLimits } from '../../contract/tests/test-limits.js';
import { type Acknowledgement, encodedBody, type StatsClient } from '../client.js';
import type { Inputs } from '../inputs.js';
import type { RecordResult } from '../report.js';
import type { ReportContext } from '../report-context.js';
import { idempotencyKey, type TestsRequest } from '../requests.js';

type RunIdentity = Omit<IngestTestsRequest, 'cases'>;

/** A build id longer than the contract's limit is replaced by its hash (the same on every retry). */
function fitted(id: string): string {
  if (id.length <= TestLimits.buildIdLength) return id;
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash('sha256').update(id).digest('base64url');
}

/**
 * The run the cases belong to. Its build id is this execution of the step (the run, attempt, job
 * and step, and the execution's random id: the same identity the Idempotency-Keys use), so matrix
 * legs that run the same tests are runs of their own; commit, branch and pull request come from
 * the CI's facts.
 */
export function runIdentity(
  context: ReportContext,
  projectId: string,
  execution: string,
  eventId: string | undefined,
): RunIdentity {
  const { github, ci } = context;
  const commit = github?.sha || ci.facts.commit || undefined;
  const attempt = github?.runAttempt;
  const pullRequest = ci.facts.pull_request?.number ?? github?.payload.pull_request?.number;
  return {
    projectId,
    buildId: fitted(idempotencyKey(context, 'tests', execution)),
    ...(attempt !== undefined && Number.isInteger(attempt) && attempt >= 1 ? { attempt } : {}),
    ...(commit ? { commit: commit.slice(0, TestLimits.commitLength) } : {}),
    ...(ci.facts.branch ? { branch: ci.facts.branch.slice(0, TestLimits.branchLength) } : {}),
    ...(pullRequest !== undefined && pullRequest >= 1 ? { pullRequest } : {}),
    ...(eventId ? { eventId } : {}),
  };
}

/**
 * Sends every test case the reports gave, in batches of at most 5,000, each with its own
 * Idempotency-Key (the run's and the batch's number). The first batch goes as is; once the server
 * answers `Accept-Encoding: gzip`, the next ones are compressed. One batch at a time, but the next
 * one is read and encoded while the server stores the one before (the CLI's part of a 100,000-case
 * run then overlaps the server's; BENCHMARKS.md, "A run of 100,000 test cases end to end"). One
 * result stands for the whole run: acknowledged with the run's id once every batch was, or the
 * first batch's failure (the batches after it are not sent: the step's retries already had their
 * chance).
 */
export async function sendTests(
  client: StatsClient,
  context: ReportContext,
  inputs: Inputs,
  execution: string,
  eventId: string | undefined,
): Promise<RecordResult | undefined> {
  const cases = inputs.tests?.cases;
  if (cases === undefined || cases.size === 0) return undefined;
  const run = runIdentity(context, inputs.projectId, execution, eventId);
  const base = idempotencyKey(context, 'tests', execution);
  const summary: TestsRequest = {
    kind: 'tests',
    path: Paths.ingestTests,
    body: { ...run, cases: [] },
    idempotencyKey: base,
    gzip: false,
  };
  const requestOf = (batch: IngestTestsRequest['cases'], n: number, gzip: boolean) =>
    ({
      kind: 'tests',
      path: Paths.ingestTests,
      body: { ...run, cases: batch },
      idempotencyKey: idempotencyKey(context, `tests-${n}`, execution),
      gzip,
    }) satisfies TestsRequest;
  const batches = cases.batches();
  let gzip = false;
  let sent = 0;
  let last: Acknowledgement | undefined;
  let replayed = true;
  let next = batches.next();
  let request = next.done ? undefined : requestOf(next.value, 1, gzip);
  while (request !== undefined) {
    sent += 1;
    const sending = client.send(request);
    // A failure is read below, once the next batch is ready; never an unhandled rejection.
    sending.catch(() => undefined);
    next = batches.next();
    let following: TestsRequest | undefined;
    if (!next.done) {
      following = requestOf(next.value, sent + 1, gzip);
      // After the first answer the coding is known: the next body is encoded now, once this
      // batch's bytes are on their way (setImmediate), while the server stores them.
      if (sent > 1) {
        await new Promise((resolve) => setImmediate(resolve));
        encodedBody(following);
      }
    }
    try {
      last = await sending;
    } catch (error) {
      return { request: summary, error: error as Error };
    }
    replayed &&= last.replayed;
    gzip = last.acceptsGzip === true;
    // Made again in the rare case the server changed its mind about gzip.
    if (following && following.gzip !== gzip) following = { ...following, gzip };
    request = following;
  }
  return {
    request: summary,
    acknowledgement: {
      id: last?.id ?? '',
      message: `${cases.size} test cases in ${sent} batch(es)`,
      replayed,
    },
  };
}
