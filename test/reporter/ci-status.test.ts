import { describe, expect, it } from 'vitest';
import { parseJobStatus } from '../../reporter/ci-status.js';
import { reporterInputs } from '../helpers/reporter-inputs.js';

/**
 * Each CI's real values for a job's outcome, as its documentation lists them, and what ci-stats
 * records for them. GitLab's `failed` and `canceled` used to be refused with exit 2, so every
 * failed or cancelled GitLab build went unrecorded.
 */
const PROVIDERS: [provider: string, value: string, expected: string][] = [
  // GitHub Actions: ${{ job.status }}
  ['github', 'success', 'success'],
  ['github', 'failure', 'failure'],
  ['github', 'cancelled', 'cancelled'],
  // GitLab CI: $CI_JOB_STATUS in after_script
  ['gitlab', 'success', 'success'],
  ['gitlab', 'failed', 'failure'],
  ['gitlab', 'canceled', 'cancelled'],
  // Buildkite: job and build states
  ['buildkite', 'passed', 'success'],
  ['buildkite', 'failed', 'failure'],
  ['buildkite', 'canceled', 'cancelled'],
  ['buildkite', 'canceling', 'cancelled'],
  ['buildkite', 'timed_out', 'failure'],
  // Buildkite: $BUILDKITE_COMMAND_EXIT_STATUS; Bitbucket: $BITBUCKET_EXIT_CODE
  ['buildkite', '0', 'success'],
  ['bitbucket', '1', 'failure'],
  ['bitbucket', '137', 'failure'],
  // Azure Pipelines: $(Agent.JobStatus)
  ['azure', 'Succeeded', 'success'],
  ['azure', 'SucceededWithIssues', 'success'],
  ['azure', 'Failed', 'failure'],
  ['azure', 'Canceled', 'cancelled'],
  // Jenkins: currentBuild.currentResult
  ['jenkins', 'SUCCESS', 'success'],
  ['jenkins', 'UNSTABLE', 'failure'],
  ['jenkins', 'FAILURE', 'failure'],
  ['jenkins', 'ABORTED', 'cancelled'],
  // CircleCI: job statuses
  ['circleci', 'success', 'success'],
  ['circleci', 'failed', 'failure'],
  ['circleci', 'canceled', 'cancelled'],
  ['circleci', 'infrastructure_fail', 'failure'],
  ['circleci', 'timedout', 'failure'],
  // Woodpecker: $CI_PIPELINE_STATUS, $CI_STEP_STATUS
  ['woodpecker', 'success', 'success'],
  ['woodpecker', 'failure', 'failure'],
  ['woodpecker', 'killed', 'cancelled'],
  ['woodpecker', 'error', 'failure'],
  // Bitbucket Pipelines: pipeline states
  ['bitbucket', 'SUCCESSFUL', 'success'],
  ['bitbucket', 'FAILED', 'failure'],
  ['bitbucket', 'STOPPED', 'cancelled'],
];

describe('parseJobStatus', () => {
  it.each(PROVIDERS)('%s %j -> %s', (_provider, value, expected) => {
    expect(parseJobStatus(value)).toEqual({ status: expected });
    expect(parseJobStatus(` ${value}\n`)).toEqual({ status: expected });
  });

  it('nothing given is no status and no warning', () => {
    expect(parseJobStatus('  ')).toEqual({ status: undefined });
  });

  it.each([
    ['skipped', 'is not one ci-stats knows'],
    ['not_run', 'is not one ci-stats knows'],
    ['-1', 'is not one ci-stats knows'],
    ['running', 'report from after_script'],
  ])('%j is a warning and no status', (value, text) => {
    const { status, warning } = parseJobStatus(value);
    expect(status).toBeUndefined();
    expect(warning).toContain(`"${value}"`);
    expect(warning).toContain(text);
  });
});

describe('an unknown status never costs the record', () => {
  it('the inputs keep the event and carry a warning naming the input', () => {
    const inputs = reporterInputs({ 'event-type': 'build', status: 'weird' });
    expect(inputs.event?.type).toBe('build');
    expect(inputs.status).toBeUndefined();
    expect(inputs.warnings).toEqual([
      { input: 'status', detail: expect.stringContaining('"weird" is not one ci-stats knows') },
    ]);
  });

  it("GitLab's failed is recorded as failure", () => {
    const inputs = reporterInputs({ 'event-type': 'build', status: 'failed' });
    expect(inputs.status).toBe('failure');
    expect(inputs.warnings).toEqual([]);
  });
});
