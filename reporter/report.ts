import type { Acknowledgement, StatsClient } from './client.js';
import type { Inputs } from './inputs.js';
import type { ReportContext } from './report-context.js';
import { type PlannedRequest, planRequests } from './requests.js';

export interface RecordResult {
  request: PlannedRequest;
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
  const planned = await planRequests(inputs, context);
  const results: RecordResult[] = [];
  for (const request of planned) {
    try {
      results.push({ request, acknowledgement: await client.send(request) });
    } catch (error) {
      results.push({ request, error: error as Error });
    }
  }
  return { results, dryRun: inputs.dryRun };
}
