import { readLocalGit } from './local-git.js';

type Env = Record<string, string | undefined>;

/** The neutral `ci` object of every payload: `null` for what the CI does not tell. */
export interface CiFacts {
  provider: string;
  repository: string | null;
  commit: string | null;
  branch: string | null;
  tag: string | null;
  build_id: string | null;
  build_number: string | null;
  build_url: string | null;
  job: string | null;
  pull_request: {
    number: number;
    source_branch: string | null;
    target_branch: string | null;
    /** The commit the pull request is compared with (its base), when the CI tells it. */
    base_sha?: string;
  } | null;
  actor: string | null;
}

/** The facts, plus what names this execution of the job for the Idempotency-Key. */
export interface CiContext {
  facts: CiFacts;
  /** Build and job identity (empty on a local run): the same on every retry of one job run. */
  identity: string[];
}

const value = (text: string | undefined) => (text?.trim() ? text.trim() : null);

/** `refs/heads/main` -> `main`, `refs/tags/v1` -> `v1`, `origin/main` -> `main`. */
const stripRef = (ref: string | undefined, prefix: string) =>
  ref?.startsWith(prefix) ? value(ref.slice(prefix.length)) : null;

/** A branch given as `refs/heads/x` or as `x`. */
const branchName = (ref: string | undefined) => stripRef(ref, 'refs/heads/') ?? value(ref);

function pullNumber(text: string | null | undefined): number | null {
  const match = /(\d+)\/?$/.exec(text ?? '');
  const number = match ? Number(match[1]) : Number.NaN;
  return Number.isSafeInteger(number) && number > 0 ? number : null;
}

function pullRequest(
  number: string | null | undefined,
  source: string | null,
  target: string | null,
  baseSha: string | null = null,
): CiFacts['pull_request'] {
  const parsed = pullNumber(number);
  if (parsed === null) return null;
  const pull = { number: parsed, source_branch: source, target_branch: target };
  return baseSha === null ? pull : { ...pull, base_sha: baseSha };
}

/** `git@github.com:org/repo.git`, `https://host/org/repo.git` -> `org/repo`. */
export function repositoryFromUrl(url: string | undefined): string | null {
  if (!url) return null;
  const path = url
    .trim()
    .replace(/^[a-z+]+:\/\/[^/]+\//i, '')
    .replace(/^[^@/]+@[^:/]+:/, '')
    .replace(/\.git\/?$/, '')
    .replace(/^\/+|\/+$/g, '');
  return path && !path.includes('://') ? path : null;
}

const facts = (provider: string, known: Partial<Omit<CiFacts, 'provider'>>): CiFacts => ({
  provider,
  repository: null,
  commit: null,
  branch: null,
  tag: null,
  build_id: null,
  build_number: null,
  build_url: null,
  job: null,
  pull_request: null,
  actor: null,
  ...known,
});

const ids = (...parts: (string | undefined)[]) => parts.map((part) => part ?? '');

/** GitHub Actions, and Gitea and Forgejo Actions, which set the same GITHUB_* variables. */
function githubLike(env: Env, provider: string, runPath: string | undefined): CiContext {
  const pull = /^refs\/pull\/(\d+)\//.exec(env.GITHUB_REF ?? '')?.[1];
  const repository = value(env.GITHUB_REPOSITORY);
  const server = (env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, '');
  return {
    facts: facts(provider, {
      repository,
      commit: value(env.GITHUB_SHA),
      branch: value(env.GITHUB_HEAD_REF) ?? stripRef(env.GITHUB_REF, 'refs/heads/'),
      tag: stripRef(env.GITHUB_REF, 'refs/tags/'),
      build_id: value(env.GITHUB_RUN_ID),
      build_number: value(env.GITHUB_RUN_NUMBER),
      build_url: repository && runPath ? `${server}/${repository}/actions/runs/${runPath}` : null,
      job: value(env.GITHUB_JOB),
      pull_request: pullRequest(pull, value(env.GITHUB_HEAD_REF), value(env.GITHUB_BASE_REF)),
      actor: value(env.GITHUB_ACTOR),
    }),
    identity: ids(env.GITHUB_RUN_ID, env.GITHUB_RUN_ATTEMPT, env.GITHUB_JOB, env.GITHUB_ACTION),
  };
}

interface Provider {
  name: string;
  detect(env: Env): boolean;
  read(env: Env): CiContext;
}

/** Each provider's variables, documented in docs/cli.md ("CI context"). Order matters: Gitea and Forgejo also look like GitHub. */
const PROVIDERS: Provider[] = [
  {
    name: 'gitea',
    detect: (env) => env.GITEA_ACTIONS === 'true',
    read: (env) => githubLike(env, 'gitea', env.GITHUB_RUN_NUMBER),
  },
  {
    name: 'forgejo',
    detect: (env) => env.FORGEJO_ACTIONS === 'true',
    read: (env) => githubLike(env, 'forgejo', env.GITHUB_RUN_NUMBER),
  },
  {
    name: 'github',
    detect: (env) => env.GITHUB_ACTIONS === 'true',
    read: (env) => githubLike(env, 'github', env.GITHUB_RUN_ID),
  },
  {
    name: 'gitlab',
    detect: (env) => env.GITLAB_CI === 'true',
    read: (env) => ({
      facts: facts('gitlab', {
        repository: value(env.CI_PROJECT_PATH),
        commit: value(env.CI_COMMIT_SHA),
        branch: value(env.CI_COMMIT_BRANCH) ?? value(env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME),
        tag: value(env.CI_COMMIT_TAG),
        build_id: value(env.CI_PIPELINE_ID),
        build_number: value(env.CI_PIPELINE_IID),
        build_url: value(env.CI_PIPELINE_URL),
        job: value(env.CI_JOB_NAME),
        pull_request: pullRequest(
          env.CI_MERGE_REQUEST_IID,
          value(env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME),
          value(env.CI_MERGE_REQUEST_TARGET_BRANCH_NAME),
          value(env.CI_MERGE_REQUEST_DIFF_BASE_SHA),
        ),
        actor: value(env.GITLAB_USER_LOGIN),
      }),
      identity: ids(env.CI_PROJECT_ID, env.CI_PIPELINE_ID, env.CI_JOB_ID),
    }),
  },
  {
    name: 'circleci',
    detect: (env) => env.CIRCLECI === 'true',
    read: (env) => {
      const owner = value(env.CIRCLE_PROJECT_USERNAME);
      const name = value(env.CIRCLE_PROJECT_REPONAME);
      return {
        facts: facts('circleci', {
          repository: owner && name ? `${owner}/${name}` : null,
          commit: value(env.CIRCLE_SHA1),
          branch: value(env.CIRCLE_BRANCH),
          tag: value(env.CIRCLE_TAG),
          build_id: value(env.CIRCLE_WORKFLOW_ID),
          build_number: value(env.CIRCLE_BUILD_NUM),
          build_url: value(env.CIRCLE_BUILD_URL),
          job: value(env.CIRCLE_JOB),
          // CircleCI names the pull request by its URL, and never its target branch.
          pull_request: pullRequest(
            env.CIRCLE_PR_NUMBER ?? env.CIRCLE_PULL_REQUEST,
            value(env.CIRCLE_BRANCH),
            null,
          ),
          actor: value(env.CIRCLE_USERNAME),
        }),
        identity: ids(env.CIRCLE_WORKFLOW_ID, env.CIRCLE_BUILD_NUM, env.CIRCLE_NODE_INDEX),
      };
    },
  },
  {
    name: 'jenkins',
    detect: (env) => Boolean(env.JENKINS_URL),
    read: (env) => {
      const pull = value(env.CHANGE_ID);
      const branch = pull
        ? value(env.CHANGE_BRANCH)
        : (value(env.BRANCH_NAME) ??
          value(env.GIT_LOCAL_BRANCH) ??
          stripRef(env.GIT_BRANCH, 'origin/') ??
          value(env.GIT_BRANCH));
      return {
        facts: facts('jenkins', {
          repository: repositoryFromUrl(env.GIT_URL ?? env.CHANGE_URL?.replace(/\/pull\/.*$/, '')),
          commit: value(env.GIT_COMMIT),
          branch,
          tag: value(env.TAG_NAME),
          build_id: value(env.BUILD_ID),
          build_number: value(env.BUILD_NUMBER),
          build_url: value(env.BUILD_URL),
          job: value(env.JOB_NAME),
          pull_request: pullRequest(pull, value(env.CHANGE_BRANCH), value(env.CHANGE_TARGET)),
          actor: value(env.CHANGE_AUTHOR) ?? value(env.BUILD_USER_ID),
        }),
        identity: ids(env.JOB_NAME, env.BUILD_NUMBER, env.EXECUTOR_NUMBER),
      };
    },
  },
  {
    name: 'buildkite',
    detect: (env) => env.BUILDKITE === 'true',
    read: (env) => ({
      facts: facts('buildkite', {
        repository: repositoryFromUrl(env.BUILDKITE_REPO),
        commit: value(env.BUILDKITE_COMMIT),
        branch: value(env.BUILDKITE_BRANCH),
        tag: value(env.BUILDKITE_TAG),
        build_id: value(env.BUILDKITE_BUILD_ID),
        build_number: value(env.BUILDKITE_BUILD_NUMBER),
        build_url: value(env.BUILDKITE_BUILD_URL),
        job: value(env.BUILDKITE_LABEL) ?? value(env.BUILDKITE_STEP_KEY),
        pull_request:
          env.BUILDKITE_PULL_REQUEST === 'false'
            ? null
            : pullRequest(
                env.BUILDKITE_PULL_REQUEST,
                value(env.BUILDKITE_BRANCH),
                value(env.BUILDKITE_PULL_REQUEST_BASE_BRANCH),
              ),
        actor: value(env.BUILDKITE_BUILD_CREATOR) ?? value(env.BUILDKITE_BUILD_AUTHOR),
      }),
      identity: ids(env.BUILDKITE_BUILD_ID, env.BUILDKITE_JOB_ID, env.BUILDKITE_RETRY_COUNT),
    }),
  },
  {
    name: 'azure-pipelines',
    detect: (env) => env.TF_BUILD?.toLowerCase() === 'true',
    read: (env) => {
      const collection = value(env.SYSTEM_COLLECTIONURI)?.replace(/\/*$/, '/');
      const project = value(env.SYSTEM_TEAMPROJECT);
      const build = value(env.BUILD_BUILDID);
      const pull = env.SYSTEM_PULLREQUEST_PULLREQUESTNUMBER ?? env.SYSTEM_PULLREQUEST_PULLREQUESTID;
      return {
        facts: facts('azure-pipelines', {
          repository: value(env.BUILD_REPOSITORY_NAME),
          commit: value(env.BUILD_SOURCEVERSION),
          branch: pull
            ? branchName(env.SYSTEM_PULLREQUEST_SOURCEBRANCH)
            : stripRef(env.BUILD_SOURCEBRANCH, 'refs/heads/'),
          tag: stripRef(env.BUILD_SOURCEBRANCH, 'refs/tags/'),
          build_id: build,
          build_number: value(env.BUILD_BUILDNUMBER),
          build_url:
            collection && project && build
              ? `${collection}${encodeURIComponent(project)}/_build/results?buildId=${build}`
              : null,
          job: value(env.SYSTEM_JOBDISPLAYNAME) ?? value(env.AGENT_JOBNAME),
          pull_request: pullRequest(
            pull,
            branchName(env.SYSTEM_PULLREQUEST_SOURCEBRANCH),
            branchName(env.SYSTEM_PULLREQUEST_TARGETBRANCH),
          ),
          actor: value(env.BUILD_REQUESTEDFOR),
        }),
        identity: ids(build ?? undefined, env.SYSTEM_JOBID, env.SYSTEM_JOBATTEMPT),
      };
    },
  },
  {
    name: 'bitbucket',
    detect: (env) => Boolean(env.BITBUCKET_BUILD_NUMBER && env.BITBUCKET_COMMIT),
    read: (env) => {
      const repository = value(env.BITBUCKET_REPO_FULL_NAME);
      const origin = value(env.BITBUCKET_GIT_HTTP_ORIGIN);
      const number = value(env.BITBUCKET_BUILD_NUMBER);
      return {
        facts: facts('bitbucket', {
          repository,
          commit: value(env.BITBUCKET_COMMIT),
          branch: value(env.BITBUCKET_BRANCH),
          tag: value(env.BITBUCKET_TAG),
          build_id: value(env.BITBUCKET_PIPELINE_UUID),
          build_number: number,
          build_url: origin && number ? `${origin}/pipelines/results/${number}` : null,
          // Bitbucket gives a step no name, only a UUID.
          job: null,
          pull_request: pullRequest(
            env.BITBUCKET_PR_ID,
            value(env.BITBUCKET_BRANCH),
            value(env.BITBUCKET_PR_DESTINATION_BRANCH),
          ),
          actor: value(env.BITBUCKET_STEP_TRIGGERER_UUID),
        }),
        identity: ids(
          env.BITBUCKET_PIPELINE_UUID,
          env.BITBUCKET_STEP_UUID,
          env.BITBUCKET_PARALLEL_STEP,
        ),
      };
    },
  },
  {
    name: 'woodpecker',
    detect: (env) => env.CI === 'woodpecker',
    read: (env) => ({
      facts: facts('woodpecker', {
        repository: value(env.CI_REPO),
        commit: value(env.CI_COMMIT_SHA),
        branch: value(env.CI_COMMIT_SOURCE_BRANCH) ?? value(env.CI_COMMIT_BRANCH),
        tag: value(env.CI_COMMIT_TAG),
        // Woodpecker numbers pipelines per repository and exposes no other id.
        build_id: null,
        build_number: value(env.CI_PIPELINE_NUMBER),
        build_url: value(env.CI_PIPELINE_URL),
        job: value(env.CI_WORKFLOW_NAME) ?? value(env.CI_STEP_NAME),
        pull_request: pullRequest(
          env.CI_COMMIT_PULL_REQUEST,
          value(env.CI_COMMIT_SOURCE_BRANCH),
          value(env.CI_COMMIT_TARGET_BRANCH),
        ),
        actor: value(env.CI_COMMIT_AUTHOR),
      }),
      identity: ids(env.CI_REPO, env.CI_PIPELINE_NUMBER, env.CI_WORKFLOW_NAME, env.CI_STEP_NAME),
    }),
  },
];

/**
 * Which CI runs us, and what it tells about the build. Outside any known CI, a local run: the git
 * checkout at `cwd` (if any) gives repository, commit and branch.
 */
export function detectCi(env: Env = process.env, cwd: string = process.cwd()): CiContext {
  const provider = PROVIDERS.find((candidate) => candidate.detect(env));
  if (provider) return provider.read(env);
  const git = readLocalGit(cwd);
  return {
    facts: facts('local', {
      repository: repositoryFromUrl(git?.remoteUrl),
      commit: git?.commit ?? null,
      branch: git?.branch ?? null,
    }),
    identity: [],
  };
}
