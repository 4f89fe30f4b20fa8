import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { githubFacts, readContext } from '../../reporter/run-context.js';

const fixture = (name: string) => join(import.meta.dirname, 'fixtures', `${name}.json`);

const env = (event: string, extra: Record<string, string> = {}) => ({
  GITHUB_EVENT_NAME: event,
  GITHUB_EVENT_PATH: fixture(event),
  GITHUB_REPOSITORY: 'octo-org/web-app',
  GITHUB_SHA: '0a1b2c3d4e5f60718293a4b5c6d7e8f901234567',
  GITHUB_REF: 'refs/heads/main',
  GITHUB_WORKFLOW: 'CI',
  GITHUB_JOB: 'build',
  GITHUB_RUN_ID: '9876543210',
  GITHUB_RUN_ATTEMPT: '2',
  GITHUB_ACTOR: 'mona',
  GITHUB_SERVER_URL: 'https://github.com',
  ...extra,
});

const common = {
  repository: 'octo-org/web-app',
  sha: '0a1b2c3d4e5f60718293a4b5c6d7e8f901234567',
  workflow: 'CI',
  job: 'build',
  run_id: 9876543210,
  run_attempt: 2,
  run_url: 'https://github.com/octo-org/web-app/actions/runs/9876543210',
  actor: 'mona',
};

describe('githubFacts', () => {
  it('push', () => {
    expect(githubFacts(readContext(env('push')))).toEqual({
      ...common,
      ref: 'refs/heads/main',
      event_name: 'push',
    });
  });

  it('pull_request adds the pull request', () => {
    const facts = githubFacts(
      readContext(env('pull_request', { GITHUB_REF: 'refs/pull/42/merge' })),
    );
    expect(facts).toEqual({
      ...common,
      ref: 'refs/pull/42/merge',
      event_name: 'pull_request',
      pull_request: {
        number: 42,
        head_ref: 'feature/cache',
        base_ref: 'main',
        url: 'https://github.com/octo-org/web-app/pull/42',
      },
    });
  });

  it('release adds the tag and the release URL', () => {
    const facts = githubFacts(readContext(env('release', { GITHUB_REF: 'refs/tags/v1.2.3' })));
    expect(facts.release).toEqual({
      tag: 'v1.2.3',
      url: 'https://github.com/octo-org/web-app/releases/tag/v1.2.3',
    });
    expect(facts.ref).toBe('refs/tags/v1.2.3');
  });

  it('schedule has no commit data and no repository in its payload: no crash', () => {
    const facts = githubFacts(readContext(env('schedule', { GITHUB_REPOSITORY: '' })));
    expect(facts).toMatchObject({
      event_name: 'schedule',
      repository: null,
      run_url: null,
      run_id: 9876543210,
    });
    expect(facts).not.toHaveProperty('pull_request');
    expect(facts).not.toHaveProperty('release');
  });

  it('workflow_dispatch', () => {
    expect(githubFacts(readContext(env('workflow_dispatch')))).toEqual({
      ...common,
      ref: 'refs/heads/main',
      event_name: 'workflow_dispatch',
    });
  });

  it('outside Actions: every fact is null, nothing throws', () => {
    expect(githubFacts(readContext({}))).toEqual({
      repository: null,
      sha: null,
      ref: null,
      workflow: null,
      job: null,
      run_id: null,
      run_attempt: null,
      run_url: null,
      actor: null,
      event_name: null,
    });
  });

  it('takes the repository from the event payload when the variable is missing', () => {
    expect(readContext({ GITHUB_EVENT_PATH: fixture('push') }).repository).toBe('octo-org/web-app');
  });
});
