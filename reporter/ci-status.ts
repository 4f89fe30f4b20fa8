/** A build's outcome as ci-stats records it. */
export type JobStatus = 'success' | 'failure' | 'cancelled';

/**
 * Each CI's own spelling of a job's outcome (compared lower-cased), so a pipeline can pass its
 * CI's variable through unchanged: GitHub's `job.status`, GitLab's `CI_JOB_STATUS`, Buildkite's
 * job and build states, Azure's `Agent.JobStatus`, Jenkins' `currentBuild.currentResult`,
 * CircleCI's job statuses, Woodpecker's `CI_PIPELINE_STATUS` / `CI_STEP_STATUS`, Bitbucket's
 * pipeline states. Refusing one of them lost every failed build of that CI (issue 24).
 */
const SPELLINGS: Record<string, JobStatus> = {
  // GitHub Actions, Gitea, Forgejo; Woodpecker and Drone say success/failure too.
  success: 'success',
  failure: 'failure',
  cancelled: 'cancelled',
  // GitLab (CI_JOB_STATUS), Buildkite, CircleCI.
  failed: 'failure',
  canceled: 'cancelled',
  // Buildkite.
  passed: 'success',
  canceling: 'cancelled',
  timed_out: 'failure',
  // Azure Pipelines (Agent.JobStatus): a success with warnings is still a success.
  succeeded: 'success',
  succeededwithissues: 'success',
  // Jenkins: UNSTABLE is a build whose tests failed.
  unstable: 'failure',
  aborted: 'cancelled',
  // CircleCI.
  infrastructure_fail: 'failure',
  timedout: 'failure',
  // Woodpecker.
  killed: 'cancelled',
  error: 'failure',
  // Bitbucket Pipelines.
  successful: 'success',
  stopped: 'cancelled',
};

/**
 * The outcome a status text names, or a warning saying why there is none. An unknown value must
 * never cost the record: the status is left out and the build still recorded. An exit code (a
 * Bitbucket `BITBUCKET_EXIT_CODE`, a Buildkite `BUILDKITE_COMMAND_EXIT_STATUS`) counts too.
 */
export function parseJobStatus(text: string): { status: JobStatus | undefined; warning?: string } {
  const value = text.trim().toLowerCase();
  if (value === '') return { status: undefined };
  const status = SPELLINGS[value];
  if (status) return { status };
  if (/^\d{1,3}$/.test(value)) return { status: value === '0' ? 'success' : 'failure' };
  if (value === 'running') {
    return {
      status: undefined,
      warning: `"${text.trim()}" is not an outcome yet (GitLab says running inside script; report from after_script), so it is left out`,
    };
  }
  return {
    status: undefined,
    warning: `"${text.trim()}" is not one ci-stats knows (success, failure, cancelled or a CI's own spelling of them), so it is left out`,
  };
}
