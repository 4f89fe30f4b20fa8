import { existsSync, readFileSync } from 'node:fs';
import { InputError } from '../../reporter/input-error.js';

/**
 * Pull requests from forks, through a second workflow. A fork's pull_request run has no secrets
 * and a read-only token, so it can neither send to the server nor comment. It uploads its event
 * file (`${{ github.event_path }}`) and its results as an artifact; a workflow triggered by
 * `workflow_run` runs in the base repository with both, downloads them and runs this step with
 * `pull-request-event` naming that file. The step then reports and publishes as that pull
 * request. The file is the fork's word, so it is believed only when GitHub agrees: the pull
 * request's head (asked of the API) must be the commit the triggering run built (`head_sha` of
 * the workflow_run event, which GitHub writes).
 */

interface WorkflowRunEvent {
  workflow_run?: { head_sha?: string };
}

interface PullRequestEvent {
  pull_request?: {
    number?: number;
    head?: { ref?: string; sha?: string };
    base?: { ref?: string };
  };
}

/** The pull request of a fork's event file, and the commit the triggering run built. */
export interface ClaimedPullRequest {
  eventFile: string;
  number: number;
  headRef: string;
  baseRef: string;
  /** The triggering run's head_sha, from the workflow_run event. */
  builtSha: string;
}

const readJson = (path: string, input: string): unknown => {
  if (!existsSync(path)) throw new InputError(input, `no file at ${path}`);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InputError(input, `${path} is not JSON: ${(error as Error).message}`);
  }
};

/** Reads what the step is told; a step outside workflow_run, or a file without a pull request, is a usage error. */
export function claimedPullRequest(eventFile: string, env: NodeJS.ProcessEnv): ClaimedPullRequest {
  const input = 'pull-request-event';
  if (env.GITHUB_EVENT_NAME !== 'workflow_run' || !env.GITHUB_EVENT_PATH) {
    throw new InputError(input, 'is for a workflow triggered by workflow_run');
  }
  const trigger = readJson(env.GITHUB_EVENT_PATH, input) as WorkflowRunEvent;
  const builtSha = trigger.workflow_run?.head_sha;
  if (!builtSha) throw new InputError(input, 'the workflow_run event names no head_sha');
  const pull = (readJson(eventFile, input) as PullRequestEvent).pull_request;
  if (!pull || typeof pull.number !== 'number' || !pull.head?.ref || !pull.base?.ref) {
    throw new InputError(input, `${eventFile} is not a pull_request event`);
  }
  return {
    eventFile,
    number: pull.number,
    headRef: pull.head.ref,
    baseRef: pull.base.ref,
    builtSha,
  };
}

/** The runner's environment as the pull request's own run would have had it. */
export function pullRequestEnvironment(
  claim: ClaimedPullRequest,
  env: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv {
  return {
    ...env,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: claim.eventFile,
    GITHUB_SHA: claim.builtSha,
    GITHUB_REF: `refs/pull/${claim.number}/merge`,
    GITHUB_HEAD_REF: claim.headRef,
    GITHUB_BASE_REF: claim.baseRef,
  };
}

/**
 * Whether GitHub says the pull request's head is the commit the triggering run built: undefined
 * when it does, else why the claim is not believed (the step then sends and posts nothing).
 */
export async function disbelief(
  claim: ClaimedPullRequest,
  token: string,
  repository: string | undefined,
): Promise<string | undefined> {
  const [owner, repo] = (repository ?? '').split('/');
  if (!owner || !repo) return 'GITHUB_REPOSITORY is not set';
  if (!token) return 'github-token is empty, so GitHub cannot confirm the pull request';
  try {
    const api = await import('./github-api.js');
    const head = await api.pullRequestHead(api.octokitFor(token), { owner, repo }, claim.number);
    if (head === claim.builtSha) return undefined;
    return `pull request #${claim.number} is at ${head.slice(0, 12)}, not at ${claim.builtSha.slice(0, 12)} that the triggering run built (a newer push, or an event file that is not that run's)`;
  } catch (error) {
    return `GitHub could not confirm pull request #${claim.number}: ${(error as Error).message}`;
  }
}
