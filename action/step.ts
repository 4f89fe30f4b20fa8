import type { AnnotationProperties } from '@actions/core';
import { readBenchmarkInputs } from '../reporter/benchmark-input.js';
import {
  DryRunStatsClient,
  HttpStatsClient,
  SendFailure,
  type Transport,
} from '../reporter/client.js';
import { InputError } from '../reporter/input-error.js';
import { parseInputs } from '../reporter/inputs.js';
import { loadJUnit } from '../reporter/junit-loader.js';
import { report } from '../reporter/report.js';
import { readActionContext } from '../reporter/report-context.js';
import { describeReport, type SummaryTable, summaryTable } from '../reporter/summary.js';
import { loadCtrf } from '../reporter/tests/ctrf-loader.js';
import { gateLines } from '../reporter/tests/quarantine-gate.js';
import { parseVerdictInputs } from './verdict/verdict-inputs.js';
import type { VerdictOutcome } from './verdict/verdict-step.js';

const USER_AGENT = 'ci-stats-action/1';

// Compiled only by the steps that use them (a chunk each, as the JUnit reader): the verdict (its
// Markdown, the GitHub client's loader) after a metric record, the workflow_run check for a
// fork's pull request. A step that only reports an event starts without them.
const loadVerdictStep = () => import('./verdict/verdict-step.js');
const loadWorkflowRun = () => import('./verdict/workflow-run.js');

/**
 * The runner's protocol, as far as the step uses it: the part of @actions/core it calls (the entry
 * passes @actions/core's own functions; tests pass a stand-in that records the calls).
 */
export interface Runner {
  getInput(name: string): string;
  setSecret(secret: string): void;
  setOutput(name: string, value: string): void;
  setFailed(message: string): void;
  warning(message: string, properties?: AnnotationProperties): void;
  error(message: string, properties?: AnnotationProperties): void;
  info(message: string): void;
  summary: {
    addHeading(text: string, level: number): Runner['summary'];
    addTable(rows: SummaryTable['rows']): Runner['summary'];
    addRaw(text: string, addEOL: boolean): Runner['summary'];
    write(): Promise<unknown>;
  };
}

/** Masks what must never be shown, before anything else can print it. */
function maskSecrets(runner: Runner): void {
  const apiKey = runner.getInput('api-key').trim();
  if (apiKey) runner.setSecret(apiKey);
  const webhook = runner.getInput('chat-webhook-url').trim();
  if (webhook) {
    runner.setSecret(webhook);
    // The token alone too, in case a message quotes only the path.
    const token = webhook.split(/[?#]/)[0]?.split('/').at(-1);
    if (token) runner.setSecret(token);
  }
  // The runner masks its own token; one given from elsewhere (a PAT in a secret) is masked too.
  const githubToken = runner.getInput('github-token').trim();
  if (githubToken) runner.setSecret(githubToken);
}

/** The job summary, when the runner offers one (a local run does not). */
async function writeSummary(
  runner: Runner,
  table: SummaryTable,
  env: NodeJS.ProcessEnv,
  verdict: VerdictOutcome | undefined,
): Promise<void> {
  if (!env.GITHUB_STEP_SUMMARY) return;
  try {
    const summary = runner.summary
      .addHeading(table.heading, 3)
      .addTable(table.rows)
      .addRaw(table.footer, true);
    // The verdict as the pull request shows it (a blank line first, so Markdown renders).
    if (verdict) summary.addRaw(`\n${verdict.markdown}\n`, true);
    await summary.write();
  } catch (error) {
    runner.warning(`Could not write the job summary: ${(error as Error).message}`);
  }
}

function setOutputs(runner: Runner, ok: boolean, ids: Record<string, string>, message: string) {
  runner.setOutput('ok', String(ok));
  runner.setOutput('event-id', ids.event ?? '');
  runner.setOutput('metric-id', ids.metric ?? '');
  runner.setOutput('message', message);
}

/** The step: read inputs, report, publish outputs and summary. Never throws. */
export async function run(
  runner: Runner,
  transport: Transport,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  let client: HttpStatsClient | undefined;
  try {
    maskSecrets(runner);
    const inputs = parseInputs((name) => runner.getInput(name));
    const verdictInputs = parseVerdictInputs((name) => runner.getInput(name));
    for (const { input, detail } of inputs.warnings) runner.warning(`Input "${input}": ${detail}`);
    // A workflow_run step posting a fork's verdict reports as that pull request, once GitHub
    // confirms it (workflow-run.ts); unconfirmed, it sends nothing and says why, the step green.
    let stepEnv = env;
    if (verdictInputs.pullRequestEvent !== undefined) {
      const { claimedPullRequest, disbelief, pullRequestEnvironment } = await loadWorkflowRun();
      const claim = claimedPullRequest(verdictInputs.pullRequestEvent, env);
      const doubt = await disbelief(claim, verdictInputs.token, env.GITHUB_REPOSITORY);
      if (doubt !== undefined) {
        const message = `Nothing was sent: ${doubt}`;
        setOutputs(runner, false, {}, message);
        runner.warning(message);
        return;
      }
      stepEnv = pullRequestEnvironment(claim, env);
    }
    const context = readActionContext(stepEnv, (warning) => runner.warning(warning));
    if (inputs.junitGlobs.length > 0) {
      const { readJUnitReports } = await loadJUnit();
      inputs.tests = await readJUnitReports(inputs.junitGlobs, (warning) =>
        runner.warning(warning),
      );
    }
    if (inputs.ctrfGlobs.length > 0) {
      const { readCtrfReports } = await loadCtrf();
      inputs.tests = await readCtrfReports(
        inputs.ctrfGlobs,
        (warning) => runner.warning(warning),
        inputs.tests,
      );
    }
    const benchmarkFiles = await readBenchmarkInputs(inputs, (warning) => runner.warning(warning));
    if (benchmarkFiles) {
      runner.info(
        `${benchmarkFiles.length} benchmark file(s): ${inputs.benchmarks?.length} result(s)`,
      );
    }
    client = HttpStatsClient.forInputs(transport, inputs, (line) => runner.info(line), USER_AGENT);
    const outcome = await report(
      client ?? new DryRunStatsClient((line) => runner.info(line)),
      context,
      inputs,
    );

    const ids: Record<string, string> = {};
    for (const { request, acknowledgement } of outcome.results) {
      // A step's benchmarks may need several metric records: the output names the first.
      ids[request.kind] ??= acknowledgement?.id ?? '';
    }
    const failures = outcome.results.filter((result) => result.error !== undefined);
    const message = describeReport(outcome);
    setOutputs(runner, failures.length === 0, ids, message);
    const verdict =
      client && ids.metric && context.github
        ? await (await loadVerdictStep()).verdictStep(
            runner,
            client,
            inputs,
            verdictInputs,
            context.github,
            ids.metric,
          )
        : undefined;
    await writeSummary(
      runner,
      summaryTable(outcome, inputs.baseUrl, inputs.projectId),
      env,
      verdict,
    );

    if (failures.length === 0) runner.info(message);
    // The server refusing a request (wrong key, foreign project...) is a configuration error.
    else if (
      inputs.failOnError ||
      failures.some((f) => f.error instanceof SendFailure && f.error.refused)
    ) {
      runner.setFailed(message);
    } else runner.warning(`${message} (fail-on-error is false, so the step goes on)`);
    // quarantine: the tests decide the step: one line per quarantined failure, red for any other.
    if (inputs.quarantineGate) {
      const gate = gateLines(inputs.quarantineGate);
      const verdictLine = gate.red ? gate.lines.pop() : undefined;
      for (const line of gate.lines) runner.info(line);
      if (verdictLine) runner.setFailed(verdictLine);
    }
    if (verdictInputs.failOnRegression && verdict && verdict.regressions.length > 0) {
      runner.setFailed(verdict.regressionLines.join('\n'));
    }
  } catch (error) {
    // A bad input always fails the step, whatever fail-on-error says.
    const message =
      error instanceof InputError ? error.message : `Unexpected error: ${String(error)}`;
    setOutputs(runner, false, {}, message);
    runner.setFailed(message);
  }
  // A request given up at its deadline may hold a socket open (through a proxy, which the
  // client cannot tear down); the step is over, so do not wait for it.
  if (client?.abandonedRequests) process.exit();
}
