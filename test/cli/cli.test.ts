import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../cli/version.js';
import type { MetricKeys } from '../../contract/stats-queries.js';
import { CLI_ENTRY, type CliRun, runCli } from '../helpers/cli.js';
import { FakeService, serving } from '../helpers/fake-service.js';
import type { ServerProcess } from '../helpers/process.js';
import {
  PROXIED_HOST,
  startProxy,
  startTlsFront,
  TEST_CA,
  type TestProxy,
} from '../helpers/proxy.js';
import { readBack, reporterStandPerFile } from '../helpers/reporter-server.js';

/**
 * The built CLI (dist/cli.js) run as a pipeline runs it, against the real server, with a fake
 * Discord on 127.0.0.1; the CI is each provider's environment from the context fixtures.
 */

const API_KEY = 'cli-integration-key-0123456789abcdefghijklmnopqrstu';
const TOKEN = 'cli_webhook_token_SECRET_0123456789abcdefghijklmnopqrstuvwxyz';
const WEBHOOK = `https://discord.com/api/webhooks/998877665544332211/${TOKEN}`;
const JUNIT = 'test/reporter/fixtures/junit';

let dir: string;
let discord: FakeService;
let server: ServerProcess;
let projectId: string;

reporterStandPerFile(API_KEY, (stand) => ({ dir, discord, server, projectId } = stand));
const { read, events, metrics } = readBack(() => ({ server, projectId }), API_KEY);

const ciEnv = (name: string): Record<string, string> =>
  JSON.parse(
    readFileSync(
      join(import.meta.dirname, '..', 'reporter', 'fixtures', 'ci', `${name}.json`),
      'utf8',
    ),
  ).env;

/** The settings a pipeline gives: key, server and project, plus a CI's variables. */
const settings = (extra: Record<string, string> = {}) => ({
  CI_STATS_API_KEY: API_KEY,
  CI_STATS_BASE_URL: server.url,
  CI_STATS_PROJECT_ID: projectId,
  ...extra,
});

function expectNoSecrets(run: CliRun) {
  for (const secret of [API_KEY, TOKEN, WEBHOOK]) {
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
  }
}

describe('ci-stats', () => {
  it('--version, --help and report --help', async () => {
    const version = await runCli(['--version'], {});
    expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect(VERSION).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version);
    const help = await runCli(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('ci-stats report [options]');
    const reportHelp = await runCli(['report', '--help'], {});
    expect(reportHelp.code).toBe(0);
    for (const option of ['--event-type', '--junit <glob>', '--no-context', '--json']) {
      expect(reportHelp.stdout).toContain(option);
    }
    expect(reportHelp.stdout).toContain('CI_STATS_API_KEY');
  });

  it('a reader that closes the pipe early (| head) ends nothing but the output: exit 0, no stack trace', async () => {
    const child = spawn(process.execPath, [CLI_ENTRY, 'report', '--event-type', 'x', '--dry-run'], {
      env: {
        PATH: process.env.PATH,
        CI_STATS_API_KEY: 'epipe-test-key',
        CI_STATS_BASE_URL: 'http://127.0.0.1:9',
        CI_STATS_PROJECT_ID: 'p',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before the command writes anything: every write to stdout fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = await once(child, 'exit');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('no command, or an unknown one, is a usage error', async () => {
    expect((await runCli([], {})).code).toBe(2);
    const unknown = await runCli(['deploy'], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "deploy"');
  });
});

describe('ci-stats report on GitLab CI', () => {
  it('stores the event and the metric with the ci object and the test counts, notifies Discord', async () => {
    const run = await runCli(
      [
        'report',
        '--event-type',
        'build',
        '--description',
        'pipeline finished',
        '--metrics',
        '{"duration_ms": 81234}',
        '--junit',
        `${JUNIT}/pytest.xml`,
        '--junit',
        `${JUNIT}/jest-*.xml`,
      ],
      settings({ ...ciEnv('gitlab-merge-request'), CI_STATS_CHAT_WEBHOOK_URL: WEBHOOK }),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('2 JUnit report(s): 13 tests, 2 failed, 1 errors, 3 skipped');
    const ids = /event stored \((\S+)\); metric stored \((\S+)\)/.exec(run.stdout);
    expect(ids).not.toBeNull();

    const ci = {
      provider: 'gitlab',
      repository: 'acme/backend',
      commit: 'b4e0d3f2c5e6b7a8f9e0d1c2b3a4f5e6d7c8b9a0',
      branch: 'fix/timeout',
      tag: null,
      build_id: '1234567999',
      build_number: '322',
      build_url: 'https://gitlab.com/acme/backend/-/pipelines/1234567999',
      job: 'lint',
      pull_request: {
        number: 57,
        source_branch: 'fix/timeout',
        target_branch: 'main',
        base_sha: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0',
      },
      actor: 'rsmith',
    };
    const counts = { total: 13, passed: 7, failed: 2, errors: 1, skipped: 3, duration_ms: 5952 };
    const event = (await events()).events.find((e) => e.id === ids?.[1]);
    expect(event).toMatchObject({ eventType: 'build', color: 0xcf222e });
    // Reports were read and --status was not given: a failed test makes the status failure.
    expect(event?.payload).toEqual({
      status: 'failure',
      tests: {
        ...counts,
        failures: [
          expect.objectContaining({ suite: 'tests.test_api', name: 'test_create_user' }),
          expect.objectContaining({ suite: 'tests.test_db', name: 'test_migrate' }),
          expect.objectContaining({ name: 'cart applies a coupon' }),
        ],
      },
      ci,
    });
    const metric = (await metrics()).metrics.find((m) => m.id === ids?.[2]);
    expect(metric?.payload).toEqual({ duration_ms: 81234, tests: counts, ci });

    const [message] = await discord.waitFor(1);
    expect(message?.path).toBe(`/api/webhooks/998877665544332211/${TOKEN}`);
    expect(message?.body).toMatchObject({
      embeds: [{ title: 'acme/backend · lint · failure', description: 'pipeline finished' }],
    });
    expectNoSecrets(run);
  });

  it('--json prints one object with what was stored; --status wins over the reports', async () => {
    const run = await runCli(
      [
        'report',
        '--event-type',
        'deploy',
        '--status',
        'success',
        '--junit',
        `${JUNIT}/pytest.xml`,
        '--json',
      ],
      settings(ciEnv('gitlab-tag')),
    );
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({
      ok: true,
      dry_run: false,
      records: [
        { kind: 'event', stored: true, replayed: false, error: null },
        { kind: 'metric', stored: true, replayed: false, error: null },
        // Every test case of the report, in one batch (docs/tests.md).
        { kind: 'tests', stored: true, replayed: false, error: null },
      ],
    });
    const event = (await events()).events.find((e) => e.id === summary.records[0].id);
    expect(event?.payload).toMatchObject({ status: 'success', ci: { tag: 'v2.0.0' } });
    expect(summary.records[0].body.payload).toEqual(event?.payload);
    const metric = (await metrics()).metrics.find((m) => m.id === summary.records[1].id);
    expect(metric?.payload).toMatchObject({ tests: { total: 7, failed: 1, errors: 1 } });
    // Progress goes to stderr, so stdout is the object alone.
    expect(run.stderr).toContain('1 JUnit report(s)');
  });

  it("records GitLab's failed and canceled builds (the README's snippet); an unknown status is a warning, not a lost build", async () => {
    const stored: Record<string, unknown>[] = [];
    for (const status of ['failed', 'canceled', 'Failed', 'ABORTED']) {
      const run = await runCli(
        ['report', '--event-type', 'build', '--status', status, '--json'],
        settings(ciEnv('gitlab-branch')),
      );
      expect(run.code, run.stderr).toBe(0);
      const id = JSON.parse(run.stdout).records[0].id;
      stored.push((await events()).events.find((e) => e.id === id)?.payload ?? {});
    }
    expect(stored.map((payload) => payload.status)).toEqual([
      'failure',
      'cancelled',
      'failure',
      'cancelled',
    ]);

    const run = await runCli(
      ['report', '--event-type', 'build', '--status', 'exploded', '--json'],
      settings(ciEnv('gitlab-branch')),
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('warning: --status: "exploded" is not one ci-stats knows');
    const id = JSON.parse(run.stdout).records[0].id;
    const event = (await events()).events.find((e) => e.id === id);
    expect(event?.eventType).toBe('build');
    expect(event?.payload).not.toHaveProperty('status');
  });

  it('--benchmark-file (repeatable) sends the results with units and directions; bad ones exit 2 and send nothing', async () => {
    const bench = 'test/reporter/fixtures/benchmarks';
    const run = await runCli(
      [
        'report',
        '--benchmark-tool',
        'go',
        '--benchmark-file',
        `${bench}/go-two-packages.txt`,
        '--benchmark-file',
        `${bench}/gab-go_output.txt`,
        '--json',
      ],
      settings(ciEnv('gitlab-branch')),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('2 benchmark file(s): 21 result(s)');
    const id = JSON.parse(run.stdout).records[0].id;
    const metric = (await metrics()).metrics.find((m) => m.id === id);
    const payload = metric?.payload as {
      benchmarks: { name: string }[];
      directions: Record<string, string>;
    };
    expect(payload.benchmarks).toHaveLength(21);
    expect(payload.directions['bench/BenchmarkSort (example.com/benchdemo/sorting) - MB/s']).toBe(
      'higher',
    );
    expect(payload.directions['bench/BenchmarkFib11 - ns/op']).toBe('lower');
    expect(metric?.payload).toMatchObject({ ci: { provider: 'gitlab' } });
    // The server reads each benchmark as its series, with the unit and direction declared.
    const { keys } = await read<MetricKeys>(
      `/stats/get-metric-keys?projectId=${projectId}&limit=200`,
    );
    const fib = keys.find((k) => k.key === 'bench/BenchmarkFib11 - ns/op');
    expect(fib).toMatchObject({ count: 1, unit: 'ns/op', direction: 'lower' });
    expect(fib?.last_value).toBe(
      (payload.benchmarks as { name: string; value: number }[]).find(
        (b) => b.name === 'BenchmarkFib11 - ns/op',
      )?.value,
    );
    expect(keys.filter((k) => k.key.startsWith('bench/'))).toHaveLength(21);

    const before = (await metrics()).metrics.length;
    for (const [args, text] of [
      [
        ['--benchmark-tool', 'gotest', '--benchmark-file', 'x.txt'],
        '--benchmark-tool: "gotest" is not a tool ci-stats reads; one of cargo, go,',
      ],
      [
        ['--benchmark-tool', 'go', '--benchmark-file', 'nope/out.txt'],
        '--benchmark-file: nope/out.txt: no such file',
      ],
      [
        ['--benchmark-tool', 'pytest', '--benchmark-file', `${bench}/go-two-packages.txt`],
        "expected pytest-benchmark's JSON (--benchmark-json), found text that is not JSON (line 1, column 1: ",
      ],
      [['--benchmark-tool', 'go'], '--benchmark-file: is needed with --benchmark-tool'],
    ] as const) {
      const bad = await runCli(
        ['report', '--event-type', 'bench', ...args],
        settings(ciEnv('gitlab-branch')),
      );
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(text);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect((await metrics()).metrics.length).toBe(before);
  });

  it('--no-context leaves the ci object out', async () => {
    const run = await runCli(
      ['report', '--metrics', '{"a": 1}', '--no-context', '--json'],
      settings(ciEnv('circleci-tag')),
    );
    expect(run.code).toBe(0);
    const id = JSON.parse(run.stdout).records[0].id;
    expect((await metrics()).metrics.find((m) => m.id === id)?.payload).toEqual({ a: 1 });
  });

  it.each([
    'github-pull-request',
    'circleci-pull-request',
    'jenkins-pull-request',
    'buildkite-pull-request',
    'azure-pipelines-pull-request',
    'bitbucket-pull-request',
    'gitea-actions',
    'woodpecker-pull-request',
  ])('on %s, the payload carries that CI', async (name) => {
    const expected = JSON.parse(
      readFileSync(
        join(import.meta.dirname, '..', 'reporter', 'fixtures', 'ci', `${name}.json`),
        'utf8',
      ),
    ).expected;
    const run = await runCli(['report', '--metrics', '{"n": 1}', '--json'], settings(ciEnv(name)));
    expect(run.code).toBe(0);
    const id = JSON.parse(run.stdout).records[0].id;
    const metric = (await metrics()).metrics.find((m) => m.id === id);
    expect(metric?.payload).toEqual({ n: 1, ci: expected });
  });
});

describe('exit codes and messages', () => {
  it('2 without CI_STATS_API_KEY, naming the variable', async () => {
    const run = await runCli(['report', '--event-type', 'build'], {
      CI_STATS_BASE_URL: server.url,
      CI_STATS_PROJECT_ID: projectId,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('ci-stats report: CI_STATS_API_KEY: is required\n');
  });

  it('2 for a key on the command line, which is not echoed', async () => {
    for (const args of [['--api-key', API_KEY], [`--api-key=${API_KEY}`]]) {
      const run = await runCli(['report', '--event-type', 'build', ...args], settings());
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--api-key is not accepted: set CI_STATS_API_KEY');
      expectNoSecrets(run);
    }
    const webhook = await runCli(
      ['report', '--event-type', 'build', `--chat-webhook-url=${WEBHOOK}`],
      settings(),
    );
    expect(webhook.code).toBe(2);
    expectNoSecrets(webhook);
  });

  it('2 for a bad option or value, naming the flag, and nothing is sent', async () => {
    const before = (await events()).events.length;
    const color = await runCli(['report', '--event-type', 'build', '--color', 'blue'], settings());
    expect(color.code).toBe(2);
    expect(color.stderr).toBe(
      'ci-stats report: --color: must be an integer 0-16777215, #rrggbb or 0xrrggbb\n',
    );
    const unknown = await runCli(['report', '--event-typ', 'build'], settings());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--event-typ'");
    const nothing = await runCli(['report'], settings());
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('--event-type');
    expect((await events()).events.length).toBe(before);
  });

  it('2 for a malformed JUnit report, naming the file; a glob without match is a warning', async () => {
    const malformed = await runCli(
      ['report', '--event-type', 'build', '--junit', 'test/reporter/fixtures/malformed.xml'],
      settings(),
    );
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(
      'test/reporter/fixtures/malformed.xml is not a readable JUnit XML report',
    );

    const none = await runCli(
      ['report', '--event-type', 'build', '--junit', 'no-such-dir/**/*.xml'],
      settings(),
    );
    expect(none.code).toBe(0);
    expect(none.stderr).toBe('warning: No JUnit report matches no-such-dir/**/*.xml\n');
    expect(none.stdout).toMatch(/^event stored \(/);
  });

  it('only --junit, and it matches nothing: two warnings, exit 0, nothing sent', async () => {
    const before = (await metrics()).metrics.length;
    const run = await runCli(['report', '--junit', 'no-such-dir/*.xml', '--json'], settings());
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'warning: No JUnit report matches no-such-dir/*.xml\n' +
        'warning: nothing to send: no event type, no metrics, no JUnit report and no benchmark found\n',
    );
    expect(JSON.parse(run.stdout)).toEqual({
      ok: true,
      dry_run: false,
      message: 'nothing to send',
      records: [],
    });
    expect((await metrics()).metrics.length).toBe(before);
  });

  it('1 when the server refuses the key, with or without --fail-on-error', async () => {
    const run = await runCli(
      ['report', '--event-type', 'build'],
      settings({ CI_STATS_API_KEY: 'cis_revoked-or-mistyped-key-0123456789' }),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: event not stored: HTTP 401: Unauthorized: You must provide a valid API Key.\n',
    );
    expect(run.stderr).not.toContain('cis_revoked');
  });

  it.each([
    [[], 0, 'warning: event not stored: no answer'],
    [['--fail-on-error'], 1, 'error: event not stored: no answer'],
  ])('server unreachable, %j: exit %i', async (extra, code, message) => {
    const probe = new FakeService();
    await probe.start();
    const origin = probe.origin;
    await probe.stop();
    const run = await runCli(
      ['report', '--event-type', 'build', '--retries', '0', ...extra],
      settings({ CI_STATS_BASE_URL: origin }),
    );
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
  });

  it('a 503 is retried with the same Idempotency-Key, built from the CI build and job', async () => {
    await serving(
      new FakeService()
        .queue({ status: 503, headers: { 'retry-after': '0' }, body: { error: 'busy' } })
        .fallback({ status: 200, body: { message: 'Event created successfully.', id: 'later' } }),
      async (flaky) => {
        const run = await runCli(
          ['report', '--event-type', 'build'],
          settings({ ...ciEnv('gitlab-branch'), CI_STATS_BASE_URL: flaky.origin }),
        );
        expect(run.code).toBe(0);
        expect(run.stdout).toBe('event stored (later)\n');
        const keys = flaky.requests.map((r) => r.headers['idempotency-key']);
        expect(keys).toHaveLength(2);
        expect(keys[1]).toBe(keys[0]);
        expect(keys[0]).toMatch(
          /^gitlab\/acme\/backend\/4711\/1234567890\/9988776655\/event\/[0-9a-f]{32}$/,
        );
        expect(flaky.requests[0]?.headers['x-api-key']).toBe(API_KEY);
        expect(flaky.requests[0]?.headers['user-agent']).toBe(`ci-stats-cli/${VERSION}`);
      },
    );
  });
});

describe('dry run', () => {
  it('validates and prints the requests, the webhook masked, and sends nothing', async () => {
    const before = (await events()).events.length;
    const run = await runCli(
      ['report', '--event-type', 'build', '--junit', `${JUNIT}/*.xml`, '--dry-run'],
      settings({ ...ciEnv('jenkins-multibranch'), CI_STATS_CHAT_WEBHOOK_URL: WEBHOOK }),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('dry run: POST /stats/ingest-events');
    expect(run.stdout).toContain('dry run: POST /stats/ingest-metrics');
    expect(run.stdout).toContain('"url": "***"');
    expect(run.stdout).toContain('"provider": "jenkins"');
    expect(run.stdout).toMatch(
      /dry run: POST \/stats\/ingest-tests \(Idempotency-Key [^)]+\): 34 test cases/,
    );
    expect(run.stdout).toContain('dry run: 3 request(s) validated, nothing sent');
    expect((await events()).events.length).toBe(before);
    expectNoSecrets(run);
  });

  it('a 100 MB report is read in a heap of 48 MB', async () => {
    const big = join(dir, 'big.xml');
    const failing =
      '<testcase classname="big.Suite" name="fails" time="0.001"><failure message="boom">trace</failure></testcase>';
    const passing = `<testcase classname="big.Suite" name="passes" time="0.001"><system-out>${'log line '.repeat(40)}</system-out></testcase>`;
    const block = `${passing.repeat(99)}${failing}`;
    const blocks = Math.ceil((100 * 1024 * 1024) / block.length);
    const chunk = block.repeat(100);
    const parts = ['<testsuites><testsuite name="big">'];
    for (let i = 0; i < blocks / 100; i++) parts.push(chunk);
    parts.push('</testsuite></testsuites>');
    writeFileSync(big, parts.join(''));
    const cases = Math.ceil(blocks / 100) * 100 * 100;
    const run = await runCli(['report', '--junit', big, '--dry-run', '--json'], settings(), [
      '--max-old-space-size=48',
    ]);
    expect(run.stderr).toContain(`1 JUnit report(s): ${cases} tests, ${cases / 100} failed`);
    expect(run.code).toBe(0);
    rmSync(big);
  }, 120_000);
});

describe('through a proxy', () => {
  let proxy: TestProxy;
  let front: Awaited<ReturnType<typeof startTlsFront>>;

  beforeAll(async () => {
    const port = Number(new URL(server.url).port);
    front = await startTlsFront(port);
    proxy = await startProxy(port, front.port);
  });
  afterAll(async () => {
    await proxy.close();
    front.close();
  });

  it('HTTPS_PROXY tunnels the request with CONNECT', async () => {
    const run = await runCli(
      ['report', '--event-type', 'proxied', '--json'],
      settings({
        CI_STATS_BASE_URL: `https://${PROXIED_HOST}:${front.port}`,
        https_proxy: proxy.url,
        NODE_EXTRA_CA_CERTS: TEST_CA,
      }),
    );
    expect(run.code).toBe(0);
    expect(proxy.seen).toContain(`CONNECT ${PROXIED_HOST}:${front.port}`);
    const id = JSON.parse(run.stdout).records[0].id;
    expect((await events()).events.find((e) => e.id === id)?.eventType).toBe('proxied');
  });
});
