import type { Acknowledgement, StatsClient } from './client.js';
import type { Inputs } from './inputs.js';
import type { ReportContext } from './report-context.js';
import { type AnyRequest, planRequests } from './requests.js';
import { quarantineGate } from './tests/quarantine-gate.js';
import { sendTests } from './tests/send-tests.js';
import { uniqueId } from './unique-id.js';

export interface RecordResult {
  request: AnyRequest;
  /** Set when the server acknowledged the record. */
  acknowledgement?: Acknowledgement;
  /** Set when it did not, after the retries. */
  error?: Error;
}

export interface Report {
  results: RecordResult[];
  dryRun: boolean;
}

/**
 * The whole job of a report, free of any runner: plan the requests from the inputs and the run's
 * context (a bad input throws before anything is sent), then send each, the event first.
 */
export async function report(
  client: StatsClient,
  context: ReportContext,
  inputs: Inputs,
): Promise<Report> {
  const execution = uniqueId();
  // --quarantine: judged before the event is planned, whose status and payload say the outcome.
  if (inputs.quarantine && inputs.tests?.cases) {
    inputs.quarantineGate = await quarantineGate(client, inputs.projectId, inputs.tests.cases);
  }
  const planned = await planRequests(inputs, context, execution);
  const results: RecordResult[] = [];
  for (const request of planned) {
    try {
      results.push({ request, acknowledgement: await client.send(request) });
    } catch (error) {
      results.push({ request, error: error as Error });
    }
  }
  // Every test case, after the event (the run's cases name it).
  const event = results.find((result) => result.request.kind === 'event')?.acknowledgement?.id;
  const tests = await sendTests(client, context, inputs, execution, event || undefined);
  if (tests) results.push(tests);
  return { results, dryRun: inputs.dryRun };
}
