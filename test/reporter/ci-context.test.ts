import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectCi, repositoryFromUrl } from '../../reporter/ci-context.js';
import { readCliContext } from '../../reporter/report-context.js';
import { idempotencyKey } from '../../reporter/requests.js';
import { tempDir } from '../helpers/server.js';

/** Each provider's real variable set (fixtures/ci/*.json) -> the neutral `ci` object. */

const FIXTURES = join(import.meta.dirname, 'fixtures', 'ci');
const fixtures = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.json'))
  .map((name) => {
    const { env, expected } = JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
    return [name.replace(/\.json$/, ''), env, expected] as const;
  });

const noGit = tempDir();
afterAll(() => rmSync(noGit, { recursive: true, force: true }));

describe('detectCi', () => {
  it('has a fixture for every provider', () => {
    const providers = new Set(fixtures.map(([, , expected]) => expected.provider));
    expect([...providers].sort()).toEqual([
      'azure-pipelines',
      'bitbucket',
      'buildkite',
      'circleci',
      'forgejo',
      'gitea',
      'github',
      'gitlab',
      'jenkins',
      'woodpecker',
    ]);
  });

  it.each(fixtures)('%s', (_name, env, expected) => {
    expect(detectCi(env, noGit).facts).toEqual(expected);
  });

  it("a GitHub pull request's base commit comes from the event file (pull_request.base.sha)", () => {
    const [, env] = fixtures.find(([name]) => name === 'github-pull-request') as [
      string,
      Record<string, string>,
      unknown,
    ];
    const dir = tempDir();
    const event = join(dir, 'event.json');
    writeFileSync(event, JSON.stringify({ pull_request: { base: { sha: 'b45e5a' } } }));
    const read = (extra: Record<string, string>) =>
      detectCi({ ...env, ...extra }, noGit).facts.pull_request?.base_sha;
    expect(read({ GITHUB_EVENT_PATH: event })).toBe('b45e5a');
    writeFileSync(event, '{ not json');
    expect(read({ GITHUB_EVENT_PATH: event })).toBeNull();
    expect(read({ GITHUB_EVENT_PATH: join(dir, 'missing.json') })).toBeNull();
  });

  it('outside CI and outside a checkout, a local run with nothing known', () => {
    expect(detectCi({}, noGit)).toEqual({
      facts: {
        provider: 'local',
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
      },
      identity: [],
    });
  });

  it('a local run reads repository, commit and branch from the checkout, worktrees too', () => {
    const dir = tempDir();
    try {
      const git = (...args: string[]) =>
        execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
      git('init', '-q', '-b', 'trunk');
      git('remote', 'add', 'origin', 'git@github.com:acme/local-app.git');
      writeFileSync(join(dir, 'a.txt'), 'a');
      git('add', '.');
      git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one');
      const sha = git('rev-parse', 'HEAD');
      expect(detectCi({}, join(dir)).facts).toMatchObject({
        provider: 'local',
        repository: 'acme/local-app',
        commit: sha,
        branch: 'trunk',
      });
      // Packed refs, a worktree on another branch, and a detached head.
      git('pack-refs', '--all');
      git('worktree', 'add', '-q', '-b', 'side', join(dir, 'wt'));
      expect(detectCi({}, join(dir, 'wt')).facts).toMatchObject({
        repository: 'acme/local-app',
        commit: sha,
        branch: 'side',
      });
      git('checkout', '-q', '--detach');
      expect(detectCi({}, dir).facts).toMatchObject({ commit: sha, branch: null });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['https://github.com/acme/api.git', 'acme/api'],
    ['git@github.com:acme/api.git', 'acme/api'],
    ['ssh://git@gitlab.example.com:2222/group/sub/api.git', 'group/sub/api'],
    ['https://dev.azure.com/contoso/_git/web', 'contoso/_git/web'],
    ['', null],
  ])('repositoryFromUrl(%s)', (url, expected) => {
    expect(repositoryFromUrl(url)).toBe(expected);
  });
});

describe('the Idempotency-Key on other CIs', () => {
  const env = (name: string) =>
    fixtures.find(([fixture]) => fixture === name)?.[1] as Record<string, string>;

  it('names the provider, repository, build and job, so a retry keeps it', () => {
    const context = readCliContext(env('gitlab-branch'), noGit);
    expect(idempotencyKey(context, 'event', 'e1')).toBe(
      'gitlab/acme/backend/4711/1234567890/9988776655/event/e1',
    );
  });

  it('a job re-run (a new job id) or another execution gets a new key', () => {
    const first = idempotencyKey(readCliContext(env('buildkite-branch'), noGit), 'metric', 'e1');
    const retried = readCliContext(
      { ...env('buildkite-branch'), BUILDKITE_RETRY_COUNT: '1' },
      noGit,
    );
    expect(idempotencyKey(retried, 'metric', 'e1')).not.toBe(first);
    expect(idempotencyKey(readCliContext(env('buildkite-branch'), noGit), 'metric', 'e2')).not.toBe(
      first,
    );
  });

  it('a local run is keyed by the execution alone', () => {
    expect(idempotencyKey(readCliContext({}, noGit), 'event', 'e1')).toBe('local/event/e1');
  });
});
