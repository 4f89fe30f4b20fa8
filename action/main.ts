import * as core from '@actions/core';
import { DryRunStatsClient, HttpStatsClient } from './client.js';
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

/** The step: read inputs, report, publish outputs and summary. Never throws. */
export async function run(): Promise<void> {
  try {
    maskSecrets();
    const inputs = parseInputs((name) => core.getInput(name));
    const client = inputs.dryRun
      ? new DryRunStatsClient((line) => core.info(line))
      : new HttpStatsClient({
          baseUrl: inputs.baseUrl,
          apiKey: inputs.apiKey,
          timeoutSeconds: inputs.timeoutSeconds,
          retries: inputs.retries,
          log: (line) => core.info(line),
          userAgent: USER_AGENT,
        });
    const outcome = await report(client, readContext(), inputs);
    if (client instanceof HttpStatsClient) client.dispose();

    const ok = outcome.results.every((result) => result.error === undefined);
    const idOf = (kind: string) =>
      outcome.results.find((r) => r.request.kind === kind)?.acknowledgement?.id ?? '';
    const message = describeReport(outcome);
    core.setOutput('ok', String(ok));
    core.setOutput('event-id', idOf('event'));
    core.setOutput('metric-id', idOf('metric'));
    core.setOutput('message', message);

    await writeSummary(summaryTable(outcome, inputs.baseUrl, inputs.projectId));

    if (ok) core.info(message);
    else if (inputs.failOnError) core.setFailed(message);
    else core.warning(`${message} (fail-on-error is false, so the step goes on)`);
  } catch (error) {
    // A bad input always fails the step, whatever fail-on-error says.
    core.setFailed(
      error instanceof InputError ? error.message : `Unexpected error: ${String(error)}`,
    );
  }
}
