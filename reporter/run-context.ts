import { existsSync, readFileSync } from 'node:fs';

/** The parts of a GitHub event payload (the runner's event file) that the facts use. */
export interface EventPayload {
  repository?: { full_name?: string };
  pull_request?: {
    number?: number;
    head?: { ref?: string; sha?: string; repo?: { full_name?: string } | null };
    base?: { ref?: string; sha?: string; repo?: { full_name?: string } };
    html_url?: string;
  };
  release?: { tag_name?: string; html_url?: string };
  [key: string]: unknown;
}

/**
 * What GitHub's runner tells a step about its run: the fields of @actions/github's `Context`
 * that we use, read from the same environment. Importing that package would bundle Octokit
 * (about 600 kB) for two dozen lines of reading, and tie the reporting core to one runner.
 */
export interface RunContext {
  payload: EventPayload;
  eventName: string;
  sha: string;
  ref: string;
  workflow: string;
  action: string;
  actor: string;
  job: string;
  runNumber: number;
  runId: number;
  runAttempt: number;
  serverUrl: string;
  repository: string | undefined;
}

/** Reads the run; an unreadable event file only costs the facts it would have given. */
export function readContext(
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = () => undefined,
): RunContext {
  let payload: EventPayload = {};
  const eventPath = env.GITHUB_EVENT_PATH;
  if (eventPath && existsSync(eventPath)) {
    try {
      payload = JSON.parse(readFileSync(eventPath, 'utf8')) as EventPayload;
    } catch (error) {
      warn(
        `The event file ${eventPath} is not readable JSON (${(error as Error).message}); going on without it`,
      );
    }
  }
  return {
    payload,
    eventName: env.GITHUB_EVENT_NAME ?? '',
    sha: env.GITHUB_SHA ?? '',
    ref: env.GITHUB_REF ?? '',
    workflow: env.GITHUB_WORKFLOW ?? '',
    action: env.GITHUB_ACTION ?? '',
    actor: env.GITHUB_ACTOR ?? '',
    job: env.GITHUB_JOB ?? '',
    runNumber: Number.parseInt(env.GITHUB_RUN_NUMBER ?? '', 10),
    runId: Number.parseInt(env.GITHUB_RUN_ID ?? '', 10),
    runAttempt: Number.parseInt(env.GITHUB_RUN_ATTEMPT ?? '', 10),
    serverUrl: env.GITHUB_SERVER_URL ?? 'https://github.com',
    repository: env.GITHUB_REPOSITORY || payload.repository?.full_name,
  };
}

/** The `github` object added to payloads: where and why this record was made. */
export interface GitHubFacts {
  repository: string | null;
  sha: string | null;
  ref: string | null;
  workflow: string | null;
  job: string | null;
  run_id: number | null;
  run_attempt: number | null;
  run_url: string | null;
  actor: string | null;
  event_name: string | null;
  pull_request?: {
    number: number;
    head_ref: string | null;
    base_ref: string | null;
    url: string | null;
  };
  release?: { tag: string | null; url: string | null };
}

const orNull = (value: string | undefined) => (value ? value : null);
const intOrNull = (value: number) => (Number.isInteger(value) ? value : null);

/**
 * The facts of the run, for push, pull_request, release, schedule, workflow_dispatch and any
 * other event: fields the event does not have are null, never a crash.
 */
export function githubFacts(context: RunContext): GitHubFacts {
  const runId = intOrNull(context.runId);
  const facts: GitHubFacts = {
    repository: orNull(context.repository),
    sha: orNull(context.sha),
    ref: orNull(context.ref),
    workflow: orNull(context.workflow),
    job: orNull(context.job),
    run_id: runId,
    run_attempt: intOrNull(context.runAttempt),
    run_url:
      context.repository && runId !== null
        ? `${context.serverUrl}/${context.repository}/actions/runs/${runId}`
        : null,
    actor: orNull(context.actor),
    event_name: orNull(context.eventName),
  };
  const pull = context.payload.pull_request;
  if (pull && typeof pull.number === 'number') {
    facts.pull_request = {
      number: pull.number,
      head_ref: orNull(pull.head?.ref),
      base_ref: orNull(pull.base?.ref),
      url: orNull(pull.html_url),
    };
  }
  const release = context.payload.release;
  if (context.eventName === 'release' && release) {
    facts.release = { tag: orNull(release.tag_name), url: orNull(release.html_url) };
  }
  return facts;
}
