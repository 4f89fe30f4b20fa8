import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAction, runnerEnv, visibleLog } from '../helpers/action.js';
import { seedDurationHistory } from '../helpers/duration-history.js';
import { FakeGitHub, TOKENS } from '../helpers/fake-github.js';
import { type ServerProcess, startServerProcess } from '../helpers/process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The verdict on the pull request end to end: the built Action (dist/index.js) run as a runner
 * runs it, against the real server (SQLite or PostgreSQL) holding a history of the base branch,
 * and a fake GitHub API on 127.0.0.1 that enforces GitHub's rules (tokens, a fork's read-only
 * token, 50 annotations per request, 65,536 characters per comment).
 */

const API_KEY = 'action-verdict-e2e-key-0123456789abcdefghijklmnop';
const FIXTURES = join(import.meta.dirname, 'fixtures');

let database: TestDatabase;
let server: ServerProcess;
let github: FakeGitHub;
let projectId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startServerProcess({ ...database.env, BOOTSTRAP_API_KEY: API_KEY });
  projectId = /project id:\s+(\S+)/.exec(server.output())?.[1] as string;
  github = new FakeGitHub();
  await github.start();
  // main's history, the pull request's base commit (2222…) last.
  await seedDurationHistory(server.url, API_KEY, projectId, (i) => ({
    github: {
      ref: 'refs/heads/main',
      sha: i === 11 ? '2222222222222222222222222222222222222222' : `${i}`.padStart(40, 'a'),
    },
  }));
});

afterAll(async () => {
  await github.stop();
  await server.stop();
  await database.drop();
});

/** A pull_request run of PR 42 (feature/cache into main at 2222…), or of a fork's copy of it. */
function pullRequestEnv(fork = false): Record<string, string> {
  let eventPath = join(FIXTURES, 'pull_request.json');
  if (fork) {
    const event = JSON.parse(readFileSync(eventPath, 'utf8'));
    event.pull_request.head.repo = { full_name: 'someone/web-app' };
    eventPath = join(database.dir, 'fork-event.json');
    writeFileSync(eventPath, JSON.stringify(event));
  }
  return runnerEnv('pull_request', {
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REF: 'refs/pull/42/merge',
    GITHUB_HEAD_REF: 'feature/cache',
    GITHUB_BASE_REF: 'main',
    GITHUB_API_URL: github.origin,
  });
}

const inputs = (durationMs: number, extra: Record<string, string> = {}) => ({
  'api-key': API_KEY,
  'base-url': server.url,
  'project-id': projectId,
  metrics: JSON.stringify({ duration_ms: durationMs }),
  'github-token': TOKENS.write,
  ...extra,
});

const ours = () => github.comments.filter((c) => c.body.includes('ci-stats:verdict'));

describe('the verdict on the pull request, end to end', () => {
  it('two runs on one pull request: one comment, judged against the base, updated in place', async () => {
    const first = await runAction(inputs(101), pullRequestEnv());
    expect(first.code).toBe(0);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.body).toContain('✅ no regression');
    expect(ours()[0]?.body).toContain('222222222222');
    const second = await runAction(inputs(300), pullRequestEnv());
    expect(second.code).toBe(0);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.body).toContain('❌ 1 regression');
    expect(ours()[0]?.body).toMatch(/\| `duration_ms` \| ms \| [\d.,]+ \| 300 \|/);
    expect(second.summary).toContain('❌ 1 regression');
    expect(visibleLog(second)).not.toContain(TOKENS.write);
  });

  it('a regression with check and fail-on-regression: a failure check run and a failed step', async () => {
    const run = await runAction(
      inputs(300, { check: 'true', 'fail-on-regression': 'true' }),
      pullRequestEnv(),
    );
    expect(run.code).toBe(1);
    expect(visibleLog(run)).toMatch(/regression: duration_ms is 300 ms against/);
    expect(github.checks.at(-1)?.conclusion).toBe('failure');
    expect(ours()).toHaveLength(1);
  });

  it('120 failed tests with a file and line: 120 annotations in three requests', async () => {
    const cases = Array.from(
      { length: 120 },
      (_, i) =>
        `<testcase classname="suite" name="test ${i}" file="src/t${i}.test.ts" line="${i + 1}"><failure message="boom ${i}"/></testcase>`,
    ).join('');
    const report = join(database.dir, 'junit-120.xml');
    writeFileSync(report, `<testsuite name="s">${cases}</testsuite>`);
    const checks = github.checks.length;
    const run = await runAction(
      inputs(101, { check: 'true', 'junit-files': report }),
      pullRequestEnv(),
    );
    expect(run.code).toBe(0);
    const check = github.checks[checks];
    const sizes = github.requests
      .filter((r) => r.path.includes('/check-runs') && r.method !== 'GET')
      .slice(-3)
      .map((r) => (r.body as { output: { annotations?: unknown[] } }).output.annotations?.length);
    expect(sizes).toEqual([50, 50, 20]);
    const annotations = check?.annotations as { path: string; start_line: number }[];
    expect(annotations).toHaveLength(120);
    expect(new Set(annotations.map((a) => a.path)).size).toBe(120);
  });

  it("a fork's pull request: a warning, the job summary, a green step, nothing written", async () => {
    const before = JSON.stringify({ comments: github.comments, checks: github.checks });
    const run = await runAction(
      inputs(300, { 'github-token': TOKENS.fork, check: 'true' }),
      pullRequestEnv(true),
    );
    expect(run.code).toBe(0);
    expect(visibleLog(run)).toMatch(/from a fork/);
    expect(run.summary).toContain('❌ 1 regression');
    expect(JSON.stringify({ comments: github.comments, checks: github.checks })).toBe(before);
  });

  describe('the workflow_run recipe for forks', () => {
    const HEAD = '1111111111111111111111111111111111111111';

    /** The base repository's workflow_run run, given the fork run's event file as an artifact. */
    function workflowRunEnv(): { env: Record<string, string>; artifact: string } {
      const fork = JSON.parse(readFileSync(join(FIXTURES, 'pull_request.json'), 'utf8'));
      fork.pull_request.head.repo = { full_name: 'someone/web-app' };
      const artifact = join(database.dir, 'artifact-event.json');
      writeFileSync(artifact, JSON.stringify(fork));
      const trigger = join(database.dir, 'workflow-run.json');
      writeFileSync(
        trigger,
        JSON.stringify({ workflow_run: { head_sha: HEAD, event: 'pull_request' } }),
      );
      const env = runnerEnv('workflow_run', {
        GITHUB_EVENT_PATH: trigger,
        GITHUB_REF: 'refs/heads/main',
        GITHUB_SHA: 'ffffffffffffffffffffffffffffffffffffffff',
        GITHUB_API_URL: github.origin,
      });
      return { env, artifact };
    }

    it("posts the fork's verdict on its pull request once GitHub confirms the head", async () => {
      github.comments.length = 0;
      github.pulls.set(42, HEAD);
      const { env, artifact } = workflowRunEnv();
      const run = await runAction(inputs(300, { 'pull-request-event': artifact }), env);
      expect(visibleLog(run)).not.toMatch(/from a fork/);
      expect(run.code).toBe(0);
      expect(ours()).toHaveLength(1);
      expect(github.comments[0]?.issue).toBe(42);
      expect(ours()[0]?.body).toContain('❌ 1 regression');
      // Judged as the pull request: against main at its base commit.
      expect(ours()[0]?.body).toContain('222222222222');
    });

    it('an event file GitHub does not confirm: nothing sent, nothing posted, a warning, green', async () => {
      github.comments.length = 0;
      github.pulls.set(42, 'b'.repeat(40));
      const { env, artifact } = workflowRunEnv();
      const stored = async () =>
        (
          (await (
            await fetch(`${server.url}/stats/get-metrics?projectId=${projectId}&limit=200`, {
              headers: { 'x-api-key': API_KEY },
            })
          ).json()) as { metrics: unknown[] }
        ).metrics.length;
      const before = await stored();
      const run = await runAction(inputs(300, { 'pull-request-event': artifact }), env);
      expect(run.code).toBe(0);
      expect(visibleLog(run)).toContain(
        'Nothing was sent: pull request #42 is at bbbbbbbbbbbb, not at 111111111111 that the triggering run built',
      );
      expect(run.outputs.ok).toBe('false');
      expect(github.comments).toHaveLength(0);
      expect(await stored()).toBe(before);
    });
  });
});
