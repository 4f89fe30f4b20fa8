import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../action/step.js';
import type { Comparison } from '../../reporter/verdict/comparison.js';
import { commentMarker } from '../../reporter/verdict/verdict-markdown.js';
import { comparedKey, comparisonOf } from '../helpers/comparisons.js';
import { FakeGitHub, TOKENS } from '../helpers/fake-github.js';
import { FakeTransport, type SentRequest } from '../helpers/fake-transport.js';
import { StandIn } from '../helpers/runner-stand-in.js';

/**
 * The verdict on the pull request, the Action's step in process: a fake transport answers for
 * the stats server (the metric stored, then `/stats/compare`), a fake GitHub API on 127.0.0.1
 * (GITHUB_API_URL, which @actions/github's Octokit reads) enforces GitHub's rules.
 */

const FIXTURES = join(import.meta.dirname, 'fixtures');
const github = new FakeGitHub();
let dir: string;

beforeAll(async () => {
  await github.start();
  process.env.GITHUB_API_URL = github.origin;
});
afterAll(async () => {
  delete process.env.GITHUB_API_URL;
  await github.stop();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-stats-verdict-'));
  github.requests.length = 0;
  github.comments.length = 0;
  github.checks.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const inputs = (extra: Record<string, string> = {}) => ({
  'api-key': 'cis_secret_key',
  'base-url': 'https://stats.example',
  'project-id': 'p1',
  metrics: '{"duration_ms": 1234, "bundle_bytes": 5000}',
  retries: '0',
  'github-token': TOKENS.write,
  ...extra,
});

/** The runner's environment of a pull_request run (the event file given, or the fixture's). */
function runnerEnv(event?: unknown): NodeJS.ProcessEnv {
  let eventPath = join(FIXTURES, 'pull_request.json');
  if (event !== undefined) {
    eventPath = join(dir, 'event.json');
    writeFileSync(eventPath, JSON.stringify(event));
  }
  return {
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: 'octo-org/web-app',
    GITHUB_SHA: '3333333333333333333333333333333333333333',
    GITHUB_REF: 'refs/pull/42/merge',
    GITHUB_HEAD_REF: 'feature/cache',
    GITHUB_BASE_REF: 'main',
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
  };
}

/** The stats server: the metric stored as m1, then the comparison. */
const server = (comparison: Comparison) =>
  new FakeTransport().answer(
    { status: 200, body: '{"message":"ok","id":"m1"}' },
    { status: 200, body: JSON.stringify(comparison) },
  );

const regression = comparisonOf([
  comparedKey('duration_ms', { value: 1500, verdict: 'regression', change: 0.5, baseline: 1000 }),
  comparedKey('bundle_bytes', { value: 5000, baseline: 5000, unit: 'bytes' }),
]);
const clean = comparisonOf([
  comparedKey('duration_ms', { value: 1010, baseline: 1000 }),
  comparedKey('bundle_bytes', { value: 5000, baseline: 5000, unit: 'bytes' }),
]);

const warnings = (runner: StandIn) =>
  runner.calls.filter(([kind]) => kind === 'warning').map(([, text]) => text);

describe('the verdict on the pull request', () => {
  it('asks the server to compare the record just stored, and sends the base commit', async () => {
    const transport = server(clean);
    await run(new StandIn(inputs()), transport, runnerEnv());
    const [post, compare] = transport.sent as [SentRequest, SentRequest];
    const ci = (post.body as { payload: { ci: { pull_request: unknown } } }).payload.ci;
    expect(ci.pull_request).toEqual({
      number: 42,
      source_branch: 'feature/cache',
      target_branch: 'main',
      base_sha: '2222222222222222222222222222222222222222',
    });
    expect(compare.method).toBe('GET');
    expect(compare.url).toBe('https://stats.example/stats/compare?projectId=p1&record=m1');
    expect(compare.headers['x-api-key']).toBe('cis_secret_key');
  });

  it('two runs on one pull request: one comment, updated in place', async () => {
    const first = new StandIn(inputs());
    await run(first, server(clean), runnerEnv());
    expect(github.comments).toHaveLength(1);
    expect(github.comments[0]?.body).toContain('✅ no regression');
    // Someone else's comment in between must stay untouched.
    github.comments.push({ id: 1, body: 'LGTM', issue: 42 });
    const second = new StandIn(inputs());
    await run(second, server(regression), runnerEnv());
    expect(github.comments.filter((c) => c.body.includes(commentMarker('p1')))).toHaveLength(1);
    expect(github.comments.find((c) => c.id === 1)?.body).toBe('LGTM');
    const body = github.comments[0]?.body ?? '';
    expect(body).toContain('❌ 1 regression');
    expect(body).toContain('+50.0 %');
    expect(github.calls('POST', '/issues/42/comments')).toHaveLength(1);
    expect(github.calls('PATCH', `/issues/comments/${github.comments[0]?.id}`)).toHaveLength(1);
    expect(first.failed).toBeUndefined();
    expect(second.failed).toBeUndefined();
    expect(warnings(second)).toEqual([]);
    // The job summary shows the same verdict.
    expect(second.summaryParts.join('\n')).toContain('❌ 1 regression');
  });

  it('a regression with check and fail-on-regression: a failure check run and a failed step', async () => {
    const runner = new StandIn(inputs({ check: 'true', 'fail-on-regression': 'true' }));
    await run(runner, server(regression), runnerEnv());
    expect(github.checks).toHaveLength(1);
    const check = github.checks[0];
    expect(check?.conclusion).toBe('failure');
    expect(check?.name).toBe('ci-stats: p1');
    // On the pull request's head commit, not the merge commit the run checked out.
    expect(check?.head_sha).toBe('1111111111111111111111111111111111111111');
    expect(check?.output.title).toBe('❌ 1 regression');
    expect(check?.output.summary).toContain('`duration_ms`');
    expect(runner.failed).toBe(
      'regression: duration_ms is 1,500 ms against 1,000 ms (+50.0 %; t_test ≤ 120 (n = 64))',
    );
  });

  it('a regression without fail-on-regression: a neutral check, a green step', async () => {
    const runner = new StandIn(inputs({ check: 'true' }));
    await run(runner, server(regression), runnerEnv());
    expect(github.checks[0]?.conclusion).toBe('neutral');
    expect(runner.failed).toBeUndefined();
    const clean2 = new StandIn(inputs({ check: 'true' }));
    await run(clean2, server(clean), runnerEnv());
    expect(github.checks[1]?.conclusion).toBe('success');
  });

  it('120 failed tests with a file and line: 120 annotations in three requests', async () => {
    const cases = Array.from(
      { length: 120 },
      (_, i) =>
        `<testcase classname="suite" name="test ${i}" file="src/t${i}.test.ts" line="${i + 1}"><failure message="boom ${i}"/></testcase>`,
    ).join('');
    const report = join(dir, 'junit.xml');
    writeFileSync(report, `<testsuite name="s">${cases}</testsuite>`);
    const runner = new StandIn(inputs({ check: 'true', 'junit-files': report }));
    // The metric, the batch of test cases (POST /stats/ingest-tests), then the comparison.
    const transport = new FakeTransport().answer(
      { status: 200, body: '{"message":"ok","id":"m1"}' },
      { status: 200, body: '{"message":"ok","runId":"r1","cases":120}' },
      { status: 200, body: JSON.stringify(clean) },
    );
    await run(runner, transport, runnerEnv());
    expect(transport.sent.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      'POST /stats/ingest-metrics',
      'POST /stats/ingest-tests',
      'GET /stats/compare',
    ]);
    const requests = [...github.calls('POST', '/check-runs'), ...github.calls('PATCH', '')];
    const sizes = requests
      .filter((r) => r.path.includes('check-runs'))
      .map((r) => (r.body as { output: { annotations?: unknown[] } }).output.annotations?.length);
    expect(sizes).toEqual([50, 50, 20]);
    const annotations = github.checks[0]?.annotations as { path: string; start_line: number }[];
    expect(annotations).toHaveLength(120);
    expect(annotations[119]).toMatchObject({ path: 'src/t119.test.ts', start_line: 120 });
    expect(new Set(annotations.map((a) => a.path)).size).toBe(120);
  });

  it("a fork's pull request: a warning, the job summary, a green step, nothing written", async () => {
    const event = JSON.parse(readFileSync(join(FIXTURES, 'pull_request.json'), 'utf8'));
    event.pull_request.head.repo = { full_name: 'someone/web-app' };
    event.pull_request.base.repo = { full_name: 'octo-org/web-app' };
    const runner = new StandIn(inputs({ check: 'true', 'fail-on-regression': 'false' }));
    await run(runner, server(regression), runnerEnv(event));
    expect(runner.failed).toBeUndefined();
    expect(warnings(runner)).toHaveLength(1);
    expect(warnings(runner)[0]).toMatch(/from a fork.*job summary.*pull-requests\.md/);
    expect(github.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(runner.summaryParts.join('\n')).toContain('❌ 1 regression');
  });

  it('the same for a token GitHub refuses to write with, without the fork check', async () => {
    const runner = new StandIn(inputs({ 'github-token': TOKENS.fork, check: 'true' }));
    await run(runner, server(clean), runnerEnv());
    expect(runner.failed).toBeUndefined();
    expect(warnings(runner)).toEqual([
      expect.stringContaining('`pull-requests: write`'),
      expect.stringContaining('`checks: write`'),
    ]);
    const noChecks = new StandIn(inputs({ 'github-token': TOKENS.noChecks, check: 'true' }));
    await run(noChecks, server(clean), runnerEnv());
    expect(github.comments).toHaveLength(1);
    expect(warnings(noChecks)).toEqual([expect.stringContaining('`checks: write`')]);
  });

  it('500 keys: a comment under GitHub limit, the rest counted', async () => {
    const keys = Array.from({ length: 500 }, (_, i) =>
      comparedKey(`bench/${'very-long-benchmark-name-'.repeat(4)}${i}`, {
        verdict: i % 7 === 0 ? 'regression' : 'ok',
        value: 100 + i,
      }),
    );
    const runner = new StandIn(inputs());
    await run(runner, server(comparisonOf(keys)), runnerEnv());
    expect(warnings(runner)).toEqual([]);
    const body = github.comments[0]?.body ?? '';
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body).toContain('❌ 72 regressions');
    const shown = body.split('\n').filter((line) => line.startsWith('| `bench/')).length;
    expect(shown).toBeLessThan(500);
    expect(body).toContain(`… and ${500 - shown} more keys not shown`);
  });

  it('comment-on-pr on-regression: no comment for a clean run, kept current once there is one', async () => {
    await run(
      new StandIn(inputs({ 'comment-on-pr': 'on-regression' })),
      server(clean),
      runnerEnv(),
    );
    expect(github.comments).toHaveLength(0);
    await run(
      new StandIn(inputs({ 'comment-on-pr': 'on-regression' })),
      server(regression),
      runnerEnv(),
    );
    await run(
      new StandIn(inputs({ 'comment-on-pr': 'on-regression' })),
      server(clean),
      runnerEnv(),
    );
    expect(github.comments).toHaveLength(1);
    expect(github.comments[0]?.body).toContain('✅ no regression');
    await run(new StandIn(inputs({ 'comment-on-pr': 'never' })), server(regression), runnerEnv());
    expect(github.comments[0]?.body).toContain('✅ no regression');
  });

  it('a server without /stats/compare: a warning, the step green', async () => {
    const transport = new FakeTransport().answer(
      { status: 200, body: '{"message":"ok","id":"m1"}' },
      { status: 404, body: '{"error":"Not found."}' },
    );
    const runner = new StandIn(inputs({ 'fail-on-regression': 'true' }));
    await run(runner, transport, runnerEnv());
    expect(runner.failed).toBeUndefined();
    expect(warnings(runner)).toEqual(['No verdict from the server: HTTP 404: Not found.']);
    expect(github.requests).toEqual([]);
  });

  it('a bad comment-on-pr fails the step naming the input, and sends nothing', async () => {
    const transport = server(clean);
    const runner = new StandIn(inputs({ 'comment-on-pr': 'sometimes' }));
    await run(runner, transport, runnerEnv());
    expect(runner.failed).toMatch(/^Input "comment-on-pr": must be one of always, on-change/);
    expect(transport.sent).toEqual([]);
  });
});
