import { parseArgs } from 'node:util';
import { readBenchmarkInputs } from '../reporter/benchmark-input.js';
import {
  DryRunStatsClient,
  HttpStatsClient,
  SendFailure,
  type StatsClient,
  type Transport,
} from '../reporter/client.js';
import { InputError } from '../reporter/input-error.js';
import { parseInputs } from '../reporter/inputs.js';
import { loadJUnit } from '../reporter/junit-loader.js';
import { type Report, report } from '../reporter/report.js';
import { readCliContext } from '../reporter/report-context.js';
import { describeReport } from '../reporter/summary.js';
import { loadCtrf } from '../reporter/tests/ctrf-loader.js';
import { gateLines } from '../reporter/tests/quarantine-gate.js';
import type { Comparison } from '../reporter/verdict/comparison.js';
import { commentMarker, verdictMarkdown } from '../reporter/verdict/verdict-markdown.js';
import { verdictTerminal } from '../reporter/verdict/verdict-terminal.js';
import { GITLAB_NOTE_LIMIT, mergeRequestOf, upsertMergeRequestNote } from './gitlab-note.js';
import { REPORT_HELP } from './help.js';
import { VERSION } from './version.js';

export const ExitCode = { ok: 0, failed: 1, usage: 2 } as const;

/** What the command writes to; the entry passes the process's streams, tests their own. */
export interface Console {
  out(text: string): void;
  err(text: string): void;
  /** stdout is a terminal that shows colours (the verdict's table is coloured then). */
  colour?: boolean;
}

const STRING_OPTIONS = [
  'base-url',
  'project-id',
  'event-type',
  'description',
  'payload',
  'color',
  'status',
  'metrics',
  'metrics-file',
  'chat-title',
  'chat-description',
  'chat-color',
  'timeout-seconds',
  'retries',
  'benchmark-tool',
] as const;
const BOOLEAN_OPTIONS = [
  'no-context',
  'fail-on-error',
  'dry-run',
  'json',
  'help',
  'compare',
  'fail-on-regression',
  'quarantine',
] as const;

/** Secrets belong in the environment: on a command line they land in process lists and history. */
const SECRET_FLAGS: Record<string, string> = {
  '--api-key': 'CI_STATS_API_KEY',
  '--key': 'CI_STATS_API_KEY',
  '--chat-webhook-url': 'CI_STATS_CHAT_WEBHOOK_URL',
};

/** How the CLI names each input the core knows: its flag, or its environment variable. */
const NAMES: Record<string, string> = {
  'api-key': 'CI_STATS_API_KEY',
  'base-url': '--base-url (CI_STATS_BASE_URL)',
  'project-id': '--project-id (CI_STATS_PROJECT_ID)',
  'chat-webhook-url': 'CI_STATS_CHAT_WEBHOOK_URL',
  'metrics/metrics-file': '--metrics/--metrics-file',
  'junit-files': '--junit',
  'ctrf-files': '--ctrf',
  'include-context': '--no-context',
  quarantine: '--quarantine',
};
const nameOf = (input: string) => NAMES[input] ?? `--${input}`;

class UsageError extends Error {}

function parse(args: string[]) {
  for (const arg of args) {
    const flag = arg.split('=')[0] as string;
    const variable = SECRET_FLAGS[flag];
    if (variable) {
      throw new UsageError(
        `${flag} is not accepted: set ${variable} in the environment (a secret on the command line lands in process lists and shell history)`,
      );
    }
  }
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(STRING_OPTIONS.map((name) => [name, { type: 'string' as const }])),
        ...Object.fromEntries(BOOLEAN_OPTIONS.map((name) => [name, { type: 'boolean' as const }])),
        junit: { type: 'string', multiple: true },
        'benchmark-file': { type: 'string', multiple: true },
        ctrf: { type: 'string', multiple: true },
        h: { type: 'boolean' },
      },
    }).values as Record<string, string | boolean | string[] | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The options and environment as the core's inputs, so both entries validate alike. */
function inputReader(values: ReturnType<typeof parse>, env: NodeJS.ProcessEnv) {
  const flag = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : '');
  return (name: string): string => {
    switch (name) {
      case 'api-key':
        return env.CI_STATS_API_KEY ?? '';
      case 'base-url':
        return flag(name) || (env.CI_STATS_BASE_URL ?? '');
      case 'project-id':
        return flag(name) || (env.CI_STATS_PROJECT_ID ?? '');
      case 'chat-webhook-url':
        return env.CI_STATS_CHAT_WEBHOOK_URL ?? '';
      case 'junit-files':
        return ((values.junit as string[] | undefined) ?? []).join('\n');
      case 'benchmark-file':
        return ((values['benchmark-file'] as string[] | undefined) ?? []).join('\n');
      case 'ctrf-files':
        return ((values.ctrf as string[] | undefined) ?? []).join('\n');
      case 'include-context':
        return values['no-context'] ? 'false' : '';
      case 'fail-on-error':
      case 'dry-run':
      case 'quarantine':
        return values[name] ? 'true' : '';
      default:
        return flag(name);
    }
  };
}

/** The `--json` object: what was stored, or validated, and what was not. */
function jsonSummary(outcome: Report, ok: boolean, message: string) {
  return {
    ok,
    dry_run: outcome.dryRun,
    message,
    records: outcome.results.map(({ request, acknowledgement, error }) => {
      const body = structuredClone(request.body) as { chatWebhook?: { url: string } };
      if (body.chatWebhook) body.chatWebhook.url = '***';
      return {
        kind: request.kind,
        stored: acknowledgement !== undefined && !outcome.dryRun,
        id: acknowledgement?.id || null,
        replayed: acknowledgement?.replayed ?? false,
        error: error?.message ?? null,
        body,
      };
    }),
  };
}

/** `ci-stats report`: returns the exit code. Never prints the key or the webhook URL. */
export async function reportCommand(
  args: string[],
  transport: Transport,
  console: Console,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<{ code: number; abandonedRequests: boolean }> {
  let client: HttpStatsClient | undefined;
  try {
    const values = parse(args);
    if (values.help || values.h) {
      console.out(REPORT_HELP);
      return { code: ExitCode.ok, abandonedRequests: false };
    }
    const json = values.json === true;
    // With --json, stdout carries the one object; everything else goes to stderr.
    const info = json ? console.err : console.out;
    const warn = (message: string) => console.err(`warning: ${message}`);

    const inputs = parseInputs(inputReader(values, env));
    for (const { input, detail } of inputs.warnings) warn(`${nameOf(input)}: ${detail}`);
    if (inputs.junitGlobs.length > 0) {
      const { readJUnitReports } = await loadJUnit();
      inputs.tests = await readJUnitReports(inputs.junitGlobs, warn, cwd);
      if (inputs.tests) {
        const { total, failed, errors, skipped } = inputs.tests.counts;
        info(
          `${inputs.tests.files.length} JUnit report(s): ${total} tests, ${failed} failed, ${errors} errors, ${skipped} skipped`,
        );
      }
    }
    if (inputs.ctrfGlobs.length > 0) {
      const { readCtrfReports } = await loadCtrf();
      const before = inputs.tests?.files.length ?? 0;
      inputs.tests = await readCtrfReports(inputs.ctrfGlobs, warn, inputs.tests, cwd);
      const files = (inputs.tests?.files.length ?? 0) - before;
      if (inputs.tests && files > 0)
        info(`${files} CTRF report(s): ${inputs.tests.cases?.size ?? 0} test cases in all`);
    }
    const benchmarkFiles = await readBenchmarkInputs(inputs, warn, cwd);
    if (benchmarkFiles) {
      info(`${benchmarkFiles.length} benchmark file(s): ${inputs.benchmarks?.length} result(s)`);
    }
    if (!inputs.event && !inputs.metrics && !inputs.tests && !inputs.benchmarks?.length) {
      warn('nothing to send: no event type, no metrics, no JUnit report and no benchmark found');
      if (json)
        console.out(
          JSON.stringify({
            ok: true,
            dry_run: inputs.dryRun,
            message: 'nothing to send',
            records: [],
          }),
        );
      return { code: ExitCode.ok, abandonedRequests: false };
    }

    client = HttpStatsClient.forInputs(
      transport,
      inputs,
      (line) => console.err(line),
      `ci-stats-cli/${VERSION}`,
    );
    const sender: StatsClient = client ?? new DryRunStatsClient(info);
    const outcome = await report(sender, readCliContext(env, cwd), inputs);

    const failures = outcome.results.filter((result) => result.error !== undefined);
    const message = describeReport(outcome);
    const refused = failures.some((f) => f.error instanceof SendFailure && f.error.refused);
    const code =
      failures.length === 0
        ? ExitCode.ok
        : refused || inputs.failOnError
          ? ExitCode.failed
          : ExitCode.ok;
    // --compare: the server's verdict on the metric record just stored, as a table; a GitLab
    // merge request with CI_STATS_GITLAB_TOKEN gets it as a note, --compare or not.
    const failOnRegression = values['fail-on-regression'] === true;
    const mergeRequest = mergeRequestOf(env);
    const metricId = outcome.results.find((r) => r.request.kind === 'metric')?.acknowledgement?.id;
    let verdict: Comparison | undefined;
    if ((values.compare || failOnRegression || mergeRequest) && client && metricId) {
      try {
        verdict = await client.compare(inputs.projectId, metricId);
      } catch (error) {
        warn(`no verdict from the server: ${(error as Error).message}`);
      }
    }
    const regressions = verdict?.keys.filter((key) => key.verdict === 'regression') ?? [];
    // --quarantine: the tests decide the exit code; a failure that is not quarantined is red.
    const gate = inputs.quarantineGate ? gateLines(inputs.quarantineGate) : undefined;
    const finalCode =
      code === ExitCode.ok && ((failOnRegression && regressions.length > 0) || gate?.red === true)
        ? ExitCode.failed
        : code;
    if (json) {
      const summary = jsonSummary(outcome, failures.length === 0, message);
      console.out(JSON.stringify(verdict ? { ...summary, verdict } : summary));
    }
    if (failures.length === 0) {
      if (!json) info(message);
    } else if (code === ExitCode.failed) console.err(`error: ${message}`);
    else console.err(`warning: ${message} (without --fail-on-error the exit code is 0)`);
    const link = `${inputs.baseUrl}/dashboard/projects/${encodeURIComponent(inputs.projectId)}`;
    if (verdict && !json && (values.compare || failOnRegression)) {
      info(
        verdictTerminal(
          { projectId: inputs.projectId, comparison: verdict, link },
          Boolean(console.colour),
        ),
      );
    }
    if (verdict && mergeRequest) {
      const facts = { projectId: inputs.projectId, comparison: verdict, link };
      const done = await upsertMergeRequestNote(
        transport,
        mergeRequest,
        commentMarker(inputs.projectId),
        verdictMarkdown(facts, GITLAB_NOTE_LIMIT),
        warn,
      );
      if (done) info(`verdict note ${done} on merge request !${mergeRequest.iid}`);
    }
    if (gate) {
      const verdictLine = gate.red ? gate.lines.pop() : undefined;
      for (const line of gate.lines) info(line);
      if (verdictLine) console.err(`error: ${verdictLine}`);
    }
    if (failOnRegression && regressions.length > 0 && code === ExitCode.ok)
      console.err(`error: ${regressions.length} regression(s), and --fail-on-regression`);
    return { code: finalCode, abandonedRequests: client?.abandonedRequests ?? false };
  } catch (error) {
    if (error instanceof UsageError) {
      console.err(`ci-stats report: ${error.message}\nSee ci-stats report --help.`);
    } else if (error instanceof InputError) {
      const detail = error.detail.replace(
        /\b(event-type|metrics-file|junit-files|benchmark-file|benchmark-tool|chat-webhook-url|chat-title|chat-description|chat-color)\b/g,
        (input) => nameOf(input),
      );
      console.err(`ci-stats report: ${nameOf(error.input)}: ${detail}`);
    } else {
      console.err(`ci-stats report: unexpected error: ${String(error)}`);
      return { code: ExitCode.failed, abandonedRequests: client?.abandonedRequests ?? false };
    }
    return { code: ExitCode.usage, abandonedRequests: false };
  }
}
