import type { LocatedFailure } from '../../reporter/junit.js';
import type { RunContext } from '../../reporter/run-context.js';
import { countVerdicts } from '../../reporter/verdict/comparison.js';
import { commentMarker, verdictMarkdown } from '../../reporter/verdict/verdict-markdown.js';
import { headline, headlineText, type VerdictFacts } from '../../reporter/verdict/verdict-view.js';
import type { VerdictInputs } from './verdict-inputs.js';

/** Where the recipe for forks is: the warning points there. */
export const FORK_RECIPE = 'docs/pull-requests.md#pull-requests-from-forks';

export interface Publication {
  /** The Markdown of the comment (also the job summary's and the check's). */
  markdown: string;
  /** Lines to print as warnings: what could not be posted, and why. */
  warnings: string[];
  /** What was done on GitHub, for the log. */
  done: string[];
}

/** The pull request of this run, from the event file: number, head commit, fork or not. */
export function pullRequestOf(context: RunContext) {
  const pull = context.payload.pull_request;
  if (!pull || typeof pull.number !== 'number') return undefined;
  const head = pull.head?.repo?.full_name;
  const base = pull.base?.repo?.full_name ?? context.repository;
  return {
    number: pull.number,
    headSha: pull.head?.sha || context.sha,
    // A fork's pull request runs with a read-only token (and no secrets).
    fork: head !== undefined && base !== undefined && head !== base,
  };
}

/** Whether the comment is posted (or only kept up to date when it exists). */
function wantsNewComment(inputs: VerdictInputs, facts: VerdictFacts): boolean {
  const counts = countVerdicts(facts.comparison);
  switch (inputs.commentOnPr) {
    case 'always':
      return true;
    case 'on-change':
      return counts.regression + counts.improvement > 0;
    case 'on-regression':
      return counts.regression > 0;
    default:
      return false;
  }
}

/** Why GitHub said no, in words a workflow's author can act on. */
function refusal(error: unknown, what: string, permission: string): string {
  const status = (error as { status?: number }).status;
  if (status === 401)
    return `the ci-stats verdict was not posted as ${what}: the github-token was refused (HTTP 401)`;
  if (status === 403 || status === 404) {
    return `the ci-stats verdict was not posted as ${what}: the token may not write there (HTTP ${status}; it needs \`${permission}\`); it is in the job summary`;
  }
  return `the ci-stats verdict was not posted as ${what}: ${(error as Error).message}; it is in the job summary`;
}

/**
 * Puts the verdict on the pull request (one comment per project, updated in place) and, with
 * `check: true`, in a check run with the failed tests as annotations. Never throws: a fork, a
 * token without the permission, GitHub's limits all end as a warning, never a failed step.
 */
export async function publishVerdict(
  inputs: VerdictInputs,
  facts: VerdictFacts,
  context: RunContext,
  located: LocatedFailure[],
): Promise<Publication> {
  const markdown = verdictMarkdown(facts);
  const publication: Publication = { markdown, warnings: [], done: [] };
  const pull = pullRequestOf(context);
  const comment = pull !== undefined && inputs.commentOnPr !== 'never';
  if (!comment && !inputs.check) return publication;
  if (!inputs.token) {
    publication.warnings.push('the ci-stats verdict was not posted: github-token is empty');
    return publication;
  }
  // A fork's run cannot write; a workflow_run step posting for it runs in the base repository.
  if (pull?.fork && inputs.pullRequestEvent === undefined) {
    publication.warnings.push(
      `the ci-stats verdict was not posted on pull request #${pull.number}: it comes from a fork, whose token cannot write to it. The verdict is in the job summary (${FORK_RECIPE})`,
    );
    return publication;
  }
  const [owner, repo] = (context.repository ?? '').split('/');
  if (!owner || !repo) {
    publication.warnings.push('the ci-stats verdict was not posted: GITHUB_REPOSITORY is not set');
    return publication;
  }
  const api = await import('./github-api.js');
  const octokit = api.octokitFor(inputs.token);
  if (comment && pull) {
    try {
      const result = await api.upsertComment(
        octokit,
        { owner, repo },
        pull.number,
        commentMarker(facts.projectId),
        markdown,
        wantsNewComment(inputs, facts),
      );
      if (result !== 'none') publication.done.push(`comment ${result} on #${pull.number}`);
    } catch (error) {
      publication.warnings.push(refusal(error, 'a comment', 'pull-requests: write'));
    }
  }
  if (inputs.check) {
    const regressions = countVerdicts(facts.comparison).regression;
    try {
      const { requests } = await api.publishCheck(
        octokit,
        { owner, repo },
        {
          name: `ci-stats: ${facts.projectId}`,
          headSha: pull?.headSha ?? context.sha,
          conclusion:
            regressions === 0 ? 'success' : inputs.failOnRegression ? 'failure' : 'neutral',
          title: headlineText(headline(facts.comparison)),
          summary: markdown,
          failures: located,
        },
      );
      publication.done.push(
        `check run with ${located.length} annotation(s) in ${requests} request(s)`,
      );
    } catch (error) {
      publication.warnings.push(refusal(error, 'a check run', 'checks: write'));
    }
  }
  return publication;
}
