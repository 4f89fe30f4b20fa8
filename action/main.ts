import * as core from '@actions/core';
import { DeliveryFailure, DryRunStatsClient, HttpStatsClient } from './client.js';
import { readContext } from './context.js';
import { InputError } from './errors.js';
import { parseInputs } from './inputs.js';
import { report } from './report.js';
import { describeReport, type SummaryTable, summaryTable } from './summary.js';

const USER_AGENT = 'ci-stats-action/1';

/** Masks what must never be shown, before anything else can print it. */
function maskSecrets(): void {
  const apiKey = core.getInput('api-key').trim();
  if (apiKey) core.setSecret(apiKey);
  const webhook = core.getInput('chat-webhook-url').trim();
  if (webhook) {
    core.setSecret(webhook);
    // The token alone too, in case a message quotes only the path.
    const token = webhook.split(/[?#]/)[0]?.split('/').at(-1);
    if (token) core.setSecret(token);
  }
}

/** The job summary, when the runner offers one (a local run does not). */
async function writeSummary(table: SummaryTable): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) return;
  try {
    await core.summary
      .addHeading(table.heading, 3)
      .addTable(table.rows)
      .addRaw(table.footer, true)
      .write();
  } catch (error) {
    core.warning(`Could not write the job summary: ${(error as Error).message}`);
  }
}

function setOutputs(ok: boolean, eventId: string, metricId: string, message: string): void {
  core.setOutput('ok', String(ok));
  core.setOutput('event-id', eventId);
  core.setOutput('metric-id', metricId);
  core.setOutput('message', message);
}

/** The step: read inputs, report, publish outputs and summary. Never throws. */
export async function run(): Promise<void> {
  let client: HttpStatsClient | undefined;
  try {
    maskSecrets();
    const inputs = parseInputs((name) => core.getInput(name));
    const context = readContext(process.env, (warning) => core.warning(warning));
    client = inputs.dryRun
      ? undefined
      : new HttpStatsClient({
          baseUrl: inputs.baseUrl,
          apiKey: inputs.apiKey,
          timeoutSeconds: inputs.timeoutSeconds,
          retries: inputs.retries,
          log: (line) => core.info(line),
          userAgent: USER_AGENT,
        });
    const outcome = await report(
      client ?? new DryRunStatsClient((line) => core.info(line)),
      context,
      inputs,
    );

    const idOf = (kind: string) =>
      outcome.results.find((r) => r.request.kind === kind)?.acknowledgement?.id ?? '';
    const failures = outcome.results.filter((result) => result.error !== undefined);
    const message = describeReport(outcome);
    setOutputs(failures.length === 0, idOf('event'), idOf('metric'), message);
    await writeSummary(summaryTable(outcome, inputs.baseUrl, inputs.projectId));

    if (failures.length === 0) core.info(message);
    // The server refusing a request (wrong key, foreign project...) is a configuration error.
    else if (
      inputs.failOnError ||
      failures.some((f) => f.error instanceof DeliveryFailure && f.error.refused)
    ) {
      core.setFailed(message);
    } else core.warning(`${message} (fail-on-error is false, so the step goes on)`);
  } catch (error) {
    // A bad input always fails the step, whatever fail-on-error says.
    const message =
      error instanceof InputError ? error.message : `Unexpected error: ${String(error)}`;
    setOutputs(false, '', '', message);
    core.setFailed(message);
  }
  // A request given up at its deadline may hold a socket open (through a proxy, which the
  // client cannot tear down); the step is over, so do not wait for it.
  if (client?.abandonedRequests) process.exit();
}
