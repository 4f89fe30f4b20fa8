import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAction, runnerEnv, visibleLog } from '../helpers/action.js';
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
 * The built Action (dist/index.js) run as a runner runs it, against the real server started as
 * `npm start` does, with a fake Discord on 127.0.0.1.
 */

const API_KEY = 'action-integration-key-0123456789abcdefghijklmnop';
const TOKEN = 'discord_webhook_token_SECRET_0123456789abcdefghijklmnopqrstuvwxyz';
const WEBHOOK = `https://discord.com/api/webhooks/112233445566778899/${TOKEN}`;

let dir: string;
let discord: FakeService;
let server: ServerProcess;
let projectId: string;

reporterStandPerFile(API_KEY, (stand) => ({ dir, discord, server, projectId } = stand));
const { events, metrics } = readBack(() => ({ server, projectId }), API_KEY);

const inputs = (extra: Record<string, string> = {}) => ({
  'api-key': API_KEY,
  'base-url': server.url,
  'project-id': projectId,
  ...extra,
});

function expectNoSecrets(log: string) {
  for (const secret of [API_KEY, TOKEN, WEBHOOK]) expect(log).not.toContain(secret);
}

describe('on push', () => {
  it('stores the event and the metric with the github context, notifies Discord, writes outputs and summary', async () => {
    const run = await runAction(
      inputs({
        'event-type': 'build',
        description: 'main is green',
        status: 'success',
        payload: '{"branch":"main"}',
        metrics: '{"duration_ms": 81234, "tests": 312}',
        'chat-webhook-url': WEBHOOK,
      }),
      runnerEnv('push'),
    );
    expect(run.code).toBe(0);
    expect(run.outputs.ok).toBe('true');
    expect(run.outputs['event-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.outputs['metric-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.outputs.message).toContain('event stored');

    const event = (await events()).events.find((e) => e.id === run.outputs['event-id']);
    expect(event).toMatchObject({
      eventType: 'build',
      description: 'main is green',
      color: 0x2ea043,
      payload: {
        branch: 'main',
        status: 'success',
        github: {
          repository: 'octo-org/web-app',
          sha: '0a1b2c3d4e5f60718293a4b5c6d7e8f901234567',
          event_name: 'push',
          workflow: 'CI',
          job: 'build',
          run_attempt: 1,
          actor: 'mona',
          run_url: expect.stringMatching(
            /^https:\/\/github\.com\/octo-org\/web-app\/actions\/runs\/\d+$/,
          ),
        },
        ci: {
          provider: 'github',
          repository: 'octo-org/web-app',
          commit: '0a1b2c3d4e5f60718293a4b5c6d7e8f901234567',
          branch: 'main',
          tag: null,
          build_number: '12',
          job: 'build',
          pull_request: null,
          actor: 'mona',
        },
      },
    });
    const metric = (await metrics()).metrics.find((m) => m.id === run.outputs['metric-id']);
    expect(metric?.payload).toMatchObject({
      duration_ms: 81234,
      tests: 312,
      github: { event_name: 'push' },
    });

    const [message] = await discord.waitFor(1);
    expect(message?.path).toBe(`/api/webhooks/112233445566778899/${TOKEN}`);
    expect(message?.body).toMatchObject({
      embeds: [
        { title: 'octo-org/web-app · CI · success', description: 'main is green', color: 0x2ea043 },
      ],
    });

    expect(run.summary).toContain('<table>');
    expect(run.summary).toContain('✅ stored');
    expect(run.summary).toContain(run.outputs['event-id']);
    expect(run.summary).toContain('Discord notification');
    expectNoSecrets(run.summary);
    expectNoSecrets(visibleLog(run));
    // The runner hides masked values: the key, the webhook URL and its token alone.
    expect(run.stdout).toContain(`::add-mask::${API_KEY}\n`);
    expect(run.stdout).toContain(`::add-mask::${WEBHOOK}\n`);
    expect(run.stdout).toContain(`::add-mask::${TOKEN}\n`);
  });
});

describe('on release', () => {
  it('records the tag and release URL and announces it', async () => {
    const before = discord.requests.length;
    const run = await runAction(
      inputs({
        'event-type': 'release',
        'chat-webhook-url': WEBHOOK,
        'chat-title': 'Released v1.2.3',
      }),
      runnerEnv('release', { GITHUB_REF: 'refs/tags/v1.2.3' }),
    );
    expect(run.code).toBe(0);
    const event = (await events()).events.find((e) => e.id === run.outputs['event-id']);
    expect(event?.payload).toMatchObject({
      github: {
        release: { tag: 'v1.2.3', url: 'https://github.com/octo-org/web-app/releases/tag/v1.2.3' },
      },
    });
    const messages = await discord.waitFor(before + 1);
    expect(messages.at(-1)?.body).toMatchObject({ embeds: [{ title: 'Released v1.2.3' }] });
  });
});

describe.each(['pull_request', 'schedule', 'workflow_dispatch'])('on %s', (eventName) => {
  it('stores a metric from metrics-file', async () => {
    const file = join(dir, `${eventName}-metrics.json`);
    writeFileSync(file, JSON.stringify({ bundle_kb: 612, lighthouse: 98 }));
    const run = await runAction(inputs({ 'metrics-file': file }), runnerEnv(eventName));
    expect(run.code).toBe(0);
    expect(run.outputs['event-id']).toBe('');
    const metric = (await metrics()).metrics.find((m) => m.id === run.outputs['metric-id']);
    expect(metric?.payload).toMatchObject({
      bundle_kb: 612,
      lighthouse: 98,
      github: { event_name: eventName },
    });
  });
});

describe('matrix', () => {
  it('two legs of one job sending the same record store two records', async () => {
    const env = runnerEnv('push');
    const legs = await Promise.all(
      [1, 2].map(() => runAction(inputs({ 'event-type': 'matrix-build' }), env)),
    );
    expect(legs.map((leg) => leg.outputs.message)).toEqual([
      expect.stringMatching(/^event stored/),
      expect.stringMatching(/^event stored/),
    ]);
    expect(legs[0]?.outputs['event-id']).not.toBe(legs[1]?.outputs['event-id']);
  });
});

describe('configuration errors', () => {
  it('fail the step whatever fail-on-error says, name the input, send nothing', async () => {
    const count = (await events()).events.length;
    const run = await runAction(
      inputs({
        'event-type': 'build',
        color: 'blue',
        'fail-on-error': 'false',
        'chat-webhook-url': WEBHOOK,
      }),
      runnerEnv('push'),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::Input "color"');
    expect(run.outputs).toEqual({
      ok: 'false',
      'event-id': '',
      'metric-id': '',
      message: expect.stringContaining('Input "color"'),
    });
    expect((await events()).events.length).toBe(count);
    expectNoSecrets(visibleLog(run));
  });

  it('a webhook URL the server would refuse fails before sending', async () => {
    const run = await runAction(
      inputs({ 'event-type': 'build', 'chat-webhook-url': 'https://hooks.example.com/x' }),
      runnerEnv('push'),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::Input "chat-webhook-url"');
  });
});

describe('dry run', () => {
  it('validates and prints the requests without sending, masking the webhook', async () => {
    const count = (await events()).events.length;
    const run = await runAction(
      inputs({
        'event-type': 'build',
        'chat-webhook-url': WEBHOOK,
        'dry-run': 'true',
        metrics: '{"a":1}',
      }),
      runnerEnv('push'),
    );
    expect(run.code).toBe(0);
    expect(run.outputs.ok).toBe('true');
    expect(run.stdout).toContain('dry run: POST /stats/ingest-events');
    expect(run.stdout).toContain('"url": "***"');
    expect((await events()).events.length).toBe(count);
    expectNoSecrets(visibleLog(run));
  });
});

describe('delivery failures', () => {
  const closedPort = async () => {
    const probe = new FakeService();
    await probe.start();
    const origin = probe.origin;
    await probe.stop();
    return origin;
  };

  it.each([
    ['false', 0, 'warning'],
    ['true', 1, 'error'],
  ])(
    'server down, fail-on-error %s: exit %i with an %s annotation',
    async (failOnError, code, level) => {
      const run = await runAction(
        inputs({
          'base-url': await closedPort(),
          'event-type': 'build',
          retries: '0',
          'fail-on-error': failOnError,
        }),
        runnerEnv('push'),
      );
      expect(run.code).toBe(code);
      expect(run.outputs.ok).toBe('false');
      expect(run.outputs['event-id']).toBe('');
      expect(run.stdout).toMatch(new RegExp(`::${level}::event not stored: no answer`));
      expect(run.summary).toContain('❌');
    },
  );

  it.each([
    ['false', 0],
    ['true', 1],
  ])(
    'server answering 500, fail-on-error %s: retried with the same key, then exit %i',
    async (failOnError, code) => {
      await serving(
        new FakeService().fallback({
          status: 500,
          body: { error: 'An internal server error occurred.' },
        }),
        async (broken) => {
          const run = await runAction(
            inputs({
              'base-url': broken.origin,
              'event-type': 'build',
              retries: '1',
              'fail-on-error': failOnError,
            }),
            runnerEnv('push'),
          );
          expect(run.code).toBe(code);
          expect(run.outputs.ok).toBe('false');
          expect(run.outputs.message).toBe(
            'event not stored: HTTP 500: An internal server error occurred.',
          );
          expect(broken.requests).toHaveLength(2);
          const keys = broken.requests.map((r) => r.headers['idempotency-key']);
          expect(keys[0]).toBeTruthy();
          expect(keys[1]).toBe(keys[0]);
          expectNoSecrets(visibleLog(run));
        },
      );
    },
  );

  it('a server that never answers times out after timeout-seconds', async () => {
    await serving(new FakeService().fallback({ hang: true }), async (silent) => {
      const run = await runAction(
        inputs({
          'base-url': silent.origin,
          'event-type': 'build',
          retries: '0',
          'timeout-seconds': '0.5',
        }),
        runnerEnv('push'),
      );
      expect(run.outputs.message).toBe('event not stored: no answer within 0.5 s');
    });
  });

  it('a key the server refuses fails the step even without fail-on-error', async () => {
    const run = await runAction(
      inputs({ 'api-key': 'cis_revoked-or-mistyped-key-0123456789', 'event-type': 'build' }),
      runnerEnv('push'),
    );
    expect(run.code).toBe(1);
    expect(run.outputs.ok).toBe('false');
    expect(run.stdout).toContain(
      '::error::event not stored: HTTP 401: Unauthorized: You must provide a valid API Key.',
    );
  });

  it('a network error is retried', async () => {
    await serving(
      new FakeService().queue({ drop: true }).fallback({
        status: 200,
        body: { message: 'Event created successfully.', id: 'after-drop' },
      }),
      async (flaky) => {
        const run = await runAction(
          inputs({ 'base-url': flaky.origin, 'event-type': 'build' }),
          runnerEnv('push'),
        );
        expect(run.code).toBe(0);
        expect(run.outputs['event-id']).toBe('after-drop');
        expect(flaky.requests).toHaveLength(2);
        expect(run.stdout).toContain('event: attempt 1 failed (no answer');
      },
    );
  });

  it('a body that never ends is cut at timeout-seconds', async () => {
    await serving(new FakeService().fallback({ drip: true }), async (slow) => {
      const run = await runAction(
        inputs({
          'base-url': slow.origin,
          'event-type': 'build',
          retries: '0',
          'timeout-seconds': '1',
        }),
        runnerEnv('push'),
      );
      expect(run.outputs.message).toBe('event not stored: no answer within 1 s');
      expect(run.code).toBe(0);
    });
  });

  it.each([429, 503])(
    '%i with Retry-After: 3 waits at least 3 s before the retry',
    async (status) => {
      await serving(
        new FakeService()
          .queue({ status, headers: { 'retry-after': '3' }, body: { error: 'busy' } })
          .fallback({ status: 200, body: { message: 'Event created successfully.', id: 'later' } }),
        async (limited) => {
          const run = await runAction(
            inputs({ 'base-url': limited.origin, 'event-type': 'build' }),
            runnerEnv('push'),
          );
          expect(run.outputs['event-id']).toBe('later');
          const [first, second] = limited.requests;
          // The backoff alone would retry within 2 s.
          expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(3_000);
        },
      );
    },
  );

  it('a Retry-After over 60 s is not waited for', async () => {
    await serving(
      new FakeService().fallback({ status: 503, headers: { 'retry-after': '3600' } }),
      async (limited) => {
        const run = await runAction(
          inputs({ 'base-url': limited.origin, 'event-type': 'build' }),
          runnerEnv('push'),
        );
        expect(limited.requests).toHaveLength(1);
        expect(run.outputs.message).toBe(
          'event not stored: HTTP 503 (the server asks to wait 3600 s)',
        );
      },
    );
  });

  it('a 4xx is not retried', async () => {
    await serving(
      new FakeService().fallback({
        status: 403,
        body: { error: 'Forbidden: You do not have access to this project.' },
      }),
      async (strict) => {
        const run = await runAction(
          inputs({ 'base-url': strict.origin, 'event-type': 'build' }),
          runnerEnv('push'),
        );
        expect(strict.requests).toHaveLength(1);
        expect(run.outputs.message).toContain('HTTP 403');
        expect(run.code).toBe(1);
      },
    );
  });

  it('after a 503 whose request did reach the server, the retry stores nothing twice', async () => {
    // A proxy that forwards every request, but answers the first one 503: the answer was lost.
    let seen = 0;
    const proxy: Server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const upstream = await fetch(`${server.url}${req.url}`, {
        method: req.method,
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(([name]) =>
            ['content-type', 'x-api-key', 'idempotency-key'].includes(name),
          ),
        ) as Record<string, string>,
        body: Buffer.concat(chunks),
      });
      seen += 1;
      if (seen === 1) {
        res
          .writeHead(503, { 'content-type': 'application/json' })
          .end('{"error":"Service Unavailable"}');
        return;
      }
      res
        .writeHead(upstream.status, Object.fromEntries(upstream.headers))
        .end(await upstream.text());
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const before = (await events()).events.length;
      const run = await runAction(
        inputs({ 'base-url': base, 'event-type': 'flaky' }),
        runnerEnv('push'),
      );
      expect(run.code).toBe(0);
      expect(seen).toBe(2);
      expect(run.stdout).toContain('event: attempt 1 failed (HTTP 503');
      const stored = (await events()).events;
      expect(stored.length).toBe(before + 1);
      expect(stored[0]?.id).toBe(run.outputs['event-id']);
      expect(run.outputs.message).toContain('already stored');
    } finally {
      proxy.close();
    }
  });
});

describe('through a proxy', () => {
  let proxy: TestProxy;
  let front: Awaited<ReturnType<typeof startTlsFront>>;
  const serverPort = () => new URL(server.url).port;

  beforeAll(async () => {
    front = await startTlsFront(Number(serverPort()));
    proxy = await startProxy(Number(serverPort()), front.port);
  });
  afterAll(async () => {
    await proxy.close();
    front.close();
  });

  it('HTTP_PROXY carries an http request in absolute form', async () => {
    const base = `http://${PROXIED_HOST}:${serverPort()}`;
    const run = await runAction(inputs({ 'base-url': base, 'event-type': 'proxied-http' }), {
      ...runnerEnv('push'),
      HTTP_PROXY: proxy.url,
    });
    expect(run.code).toBe(0);
    expect(proxy.seen).toContain(`POST ${base}/stats/ingest-events`);
    const event = (await events()).events.find((e) => e.id === run.outputs['event-id']);
    expect(event?.eventType).toBe('proxied-http');
  });

  it('HTTPS_PROXY tunnels an https request with CONNECT, the certificate checked', async () => {
    const run = await runAction(
      inputs({
        'base-url': `https://${PROXIED_HOST}:${front.port}`,
        'event-type': 'proxied-https',
      }),
      { ...runnerEnv('push'), HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: TEST_CA },
    );
    expect(run.code).toBe(0);
    expect(proxy.seen).toContain(`CONNECT ${PROXIED_HOST}:${front.port}`);
    const event = (await events()).events.find((e) => e.id === run.outputs['event-id']);
    expect(event?.eventType).toBe('proxied-https');
  });

  it('NO_PROXY sends directly', async () => {
    const before = proxy.seen.length;
    const run = await runAction(
      inputs({ 'base-url': `http://${PROXIED_HOST}:${serverPort()}`, 'event-type': 'bypass' }),
      { ...runnerEnv('push'), HTTP_PROXY: proxy.url, NO_PROXY: PROXIED_HOST, INPUT_RETRIES: '0' },
    );
    // stats.test resolves nowhere: without the proxy the request cannot arrive.
    expect(proxy.seen.length).toBe(before);
    expect(run.outputs.ok).toBe('false');
    expect(run.outputs.message).toContain('no answer');
  });
});

describe('junit-files', () => {
  it('counts the reports into the metric and the event, the job status kept', async () => {
    const junit = 'test/reporter/fixtures/junit';
    const run = await runAction(
      inputs({
        'event-type': 'test',
        status: 'success',
        'junit-files': `${junit}/TEST-*.xml\n${junit}/gradle-*.xml\n${junit}/none-*.xml\n`,
      }),
      runnerEnv('push'),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`::warning::No JUnit report matches ${junit}/none-*.xml`);
    const counts = { total: 9, passed: 4, failed: 2, errors: 1, skipped: 2, duration_ms: 569 };
    const event = (await events()).events.find((e) => e.id === run.outputs['event-id']);
    expect(event?.payload).toMatchObject({
      status: 'success',
      tests: {
        ...counts,
        failures: [
          { suite: 'com.acme.billing.InvoiceServiceTest', name: 'roundsHalfEven' },
          { suite: 'com.acme.billing.InvoiceServiceTest', name: 'loadsFromDatabase' },
          { suite: 'com.acme.app.ParserTest', name: 'rejectsUnclosedBracket()' },
        ],
      },
      github: { event_name: 'push' },
      ci: { provider: 'github' },
    });
    const metric = (await metrics()).metrics.find((m) => m.id === run.outputs['metric-id']);
    expect(metric?.payload).toMatchObject({ tests: counts, ci: { provider: 'github' } });
  });

  it('a malformed report fails the step naming the file, and sends nothing', async () => {
    const count = (await events()).events.length;
    const run = await runAction(
      inputs({ 'event-type': 'test', 'junit-files': 'test/reporter/fixtures/malformed.xml' }),
      runnerEnv('push'),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::Input "junit-files": ');
    expect(run.stdout).toContain(
      'test/reporter/fixtures/malformed.xml is not a readable JUnit XML report',
    );
    expect((await events()).events.length).toBe(count);
  });
});

describe('benchmark-tool and benchmark-file', () => {
  const BENCH = 'test/reporter/fixtures/benchmarks';

  it("stores each result with its unit and direction, as github-action-benchmark's workflow moved over", async () => {
    const run = await runAction(
      inputs({ 'benchmark-tool': 'jmh', 'benchmark-file': `${BENCH}/gab-jmh_output*.json` }),
      runnerEnv('push'),
    );
    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs.ok).toBe('true');
    expect(run.stdout).toContain('2 benchmark file(s): 2 result(s)');
    const metric = (await metrics()).metrics.find((m) => m.id === run.outputs['metric-id']);
    const name = 'org.openjdk.jmh.samples.JMHSample_01_HelloWorld.wellHelloThere';
    const withParams = `${name} ( {"paramA":"17","paramB":"33"} )`;
    expect(metric?.payload).toMatchObject({
      benchmarks: [
        { name, value: 3376238873.1228185, unit: 'ops/s', bigger_is_better: true },
        { name: withParams, unit: 'ops/s', bigger_is_better: true },
      ],
      units: { [`bench/${name}`]: 'ops/s', [`bench/${withParams}`]: 'ops/s' },
      directions: { [`bench/${name}`]: 'higher', [`bench/${withParams}`]: 'higher' },
      github: { sha: '0a1b2c3d4e5f60718293a4b5c6d7e8f901234567' },
    });
  });

  it('a file of another format fails the step, saying what was expected and found, and sends nothing', async () => {
    const count = (await metrics()).metrics.length;
    const run = await runAction(
      inputs({
        'event-type': 'bench',
        'benchmark-tool': 'go',
        'benchmark-file': `${BENCH}/hyperfine.json`,
      }),
      runnerEnv('push'),
    );
    expect(run.code).toBe(1);
    expect(run.outputs.ok).toBe('false');
    expect(run.stdout).toContain('::error::Input "benchmark-file": ');
    expect(run.stdout).toContain(
      "hyperfine.json: expected the output of go test -bench, found hyperfine's --export-json (tool hyperfine)",
    );
    expect((await metrics()).metrics.length).toBe(count);
  });

  it('a harness that printed no benchmark is a warning; the event still goes', async () => {
    const empty = join(dir, 'empty-bench.txt');
    writeFileSync(empty, 'PASS\nok  \texample.com/x\t0.01s\n');
    const run = await runAction(
      inputs({ 'event-type': 'bench', 'benchmark-tool': 'go', 'benchmark-file': empty }),
      runnerEnv('push'),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`::warning::No benchmark in ${empty}`);
    expect(run.outputs['event-id']).not.toBe('');
    expect(run.outputs['metric-id']).toBe('');
  });
});
