import { getOctokit } from '@actions/github';
import type { LocatedFailure } from '../../reporter/junit.js';

/**
 * What the step asks of GitHub's API, through @actions/github's Octokit (which takes its address
 * from GITHUB_API_URL, so GitHub Enterprise Server works as github.com does). This module is
 * imported lazily: a step that posts nothing never loads Octokit.
 */
type Octokit = ReturnType<typeof getOctokit>;

/** GitHub takes at most this many annotations in one check-run request. */
export const ANNOTATIONS_PER_REQUEST = 50;
/** A secondary rate limit's wait the step makes; a longer one gives up (with a warning). */
const MAX_WAIT_MS = 60_000;
const ATTEMPTS = 3;

export interface Repo {
  owner: string;
  repo: string;
}

export function octokitFor(token: string): Octokit {
  return getOctokit(token);
}

interface RequestFailure {
  status?: number;
  response?: { headers?: Record<string, string | undefined> };
}

/** How long a rate-limited answer asks to wait, or undefined when it is not one. */
function rateLimitWait(error: unknown): number | undefined {
  const { status, response } = (error ?? {}) as RequestFailure;
  if (status !== 403 && status !== 429) return undefined;
  const headers = response?.headers ?? {};
  const retryAfter = Number(headers['retry-after']);
  if (Number.isFinite(retryAfter) && headers['retry-after'] !== undefined) return retryAfter * 1000;
  if (headers['x-ratelimit-remaining'] === '0') {
    const reset = Number(headers['x-ratelimit-reset']) * 1000;
    return Number.isFinite(reset) ? Math.max(0, reset - Date.now()) : undefined;
  }
  return undefined;
}

/** One API call, repeated after a rate limit's Retry-After (up to a minute, three attempts). */
async function call<T>(request: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      const wait = rateLimitWait(error);
      if (wait === undefined || wait > MAX_WAIT_MS || attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** The commit a pull request's head is at, as GitHub has it. */
export async function pullRequestHead(
  octokit: Octokit,
  { owner, repo }: Repo,
  pullNumber: number,
): Promise<string> {
  const { data } = await call(() =>
    octokit.rest.pulls.get({ owner, repo, pull_number: pullNumber }),
  );
  return data.head.sha;
}

/**
 * The project's comment on the pull request, found by its hidden marker and updated in place;
 * created when there is none and `create` allows it. Returns what was done.
 */
export async function upsertComment(
  octokit: Octokit,
  { owner, repo }: Repo,
  issueNumber: number,
  marker: string,
  body: string,
  create: boolean,
): Promise<'created' | 'updated' | 'none'> {
  const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
    owner,
    repo,
    issue_number: issueNumber,
    per_page: 100,
  });
  for await (const page of pages) {
    const mine = page.data.find((comment) => comment.body?.includes(marker));
    if (mine) {
      await call(() =>
        octokit.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body }),
      );
      return 'updated';
    }
  }
  if (!create) return 'none';
  await call(() =>
    octokit.rest.issues.createComment({ owner, repo, issue_number: issueNumber, body }),
  );
  return 'created';
}

export interface CheckRun {
  name: string;
  headSha: string;
  conclusion: 'success' | 'neutral' | 'failure';
  title: string;
  summary: string;
  failures: LocatedFailure[];
}

/**
 * A completed check run holding the verdict; every located test failure becomes an annotation,
 * 50 per request (the create, then updates, which GitHub appends). Returns the requests made.
 */
export async function publishCheck(octokit: Octokit, { owner, repo }: Repo, run: CheckRun) {
  const annotations = run.failures.map((failure) => ({
    path: failure.file,
    start_line: failure.line,
    end_line: failure.line,
    annotation_level: 'failure' as const,
    title: `${failure.suite} ${failure.name}`.trim().slice(0, 255),
    message: failure.message || 'failed',
  }));
  const batches: (typeof annotations)[] = [];
  for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) {
    batches.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST));
  }
  const output = (batch: typeof annotations | undefined) => ({
    title: run.title,
    summary: run.summary,
    ...(batch ? { annotations: batch } : {}),
  });
  const created = await call(() =>
    octokit.rest.checks.create({
      owner,
      repo,
      name: run.name,
      head_sha: run.headSha,
      status: 'completed',
      conclusion: run.conclusion,
      output: output(batches[0]),
    }),
  );
  for (const batch of batches.slice(1)) {
    await call(() =>
      octokit.rest.checks.update({
        owner,
        repo,
        check_run_id: created.data.id,
        output: output(batch),
      }),
    );
  }
  return { id: created.data.id, requests: Math.max(1, batches.length) };
}
