import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../action/step.js';
import { FakeTransport } from '../helpers/fake-transport.js';
import { StandIn } from '../helpers/runner-stand-in.js';

// The Action's step in process: a stand-in for @actions/core records what the step tells the
// runner; a fake transport answers for the server.

const TOKEN = 'webhook_token_abcdefghijklmnopqrstuvwxyz';
const WEBHOOK = `https://discord.com/api/webhooks/123456789012345678/${TOKEN}`;
const base = {
  'api-key': 'cis_secret_key',
  'base-url': 'https://stats.example',
  'project-id': 'p1',
  'event-type': 'build',
  retries: '0',
};
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const env = () => {
  dir = mkdtempSync(join(tmpdir(), 'ci-stats-step-'));
  return { GITHUB_STEP_SUMMARY: join(dir, 'summary'), GITHUB_REPOSITORY: 'octo-org/web-app' };
};

describe('the Action step', () => {
  it('masks the secrets first, sends, sets the outputs and writes the summary', async () => {
    const runner = new StandIn({ ...base, metrics: '{"ms":1}', 'chat-webhook-url': WEBHOOK });
    const transport = new FakeTransport().answer(
      { status: 200, body: '{"message":"ok","id":"e1"}' },
      { status: 200, body: '{"message":"ok","id":"m1"}' },
    );
    await run(runner, transport, env());
    expect(runner.calls.slice(0, 3)).toEqual([
      ['setSecret', 'cis_secret_key'],
      ['setSecret', WEBHOOK],
      ['setSecret', TOKEN],
    ]);
    // The event, the metric, then the server's verdict on the metric (GET /stats/compare).
    expect(transport.sent.map((r) => [r.method, r.headers['x-api-key']])).toEqual([
      ['POST', 'cis_secret_key'],
      ['POST', 'cis_secret_key'],
      ['GET', 'cis_secret_key'],
    ]);
    expect(runner.outputs).toEqual({
      ok: 'true',
      'event-id': 'e1',
      'metric-id': 'm1',
      message: 'event stored (e1); metric stored (m1)',
    });
    expect(runner.failed).toBeUndefined();
    expect(runner.summaryParts.join('\n')).toContain('https://stats.example');
    expect(runner.summaryParts.join('\n')).not.toContain(TOKEN);
  });

  it('a refused request fails the step even without fail-on-error', async () => {
    const runner = new StandIn(base);
    await run(runner, new FakeTransport().answer({ status: 403, body: '{"error":"no"}' }), env());
    expect(runner.failed).toBe('event not stored: HTTP 403: no');
    expect(runner.outputs.ok).toBe('false');
  });

  it('an unreachable server is a warning, or a failure with fail-on-error', async () => {
    const warned = new StandIn(base);
    await run(warned, new FakeTransport().answer({ status: 503 }), env());
    expect(warned.failed).toBeUndefined();
    expect(warned.calls).toContainEqual([
      'warning',
      'event not stored: HTTP 503 (fail-on-error is false, so the step goes on)',
    ]);

    const failed = new StandIn({ ...base, 'fail-on-error': 'true' });
    await run(failed, new FakeTransport().answer({ status: 503 }), env());
    expect(failed.failed).toBe('event not stored: HTTP 503');
  });

  it('a bad input fails the step, names the input and sends nothing', async () => {
    const runner = new StandIn({ ...base, color: 'red' });
    const transport = new FakeTransport();
    await run(runner, transport, env());
    expect(runner.failed).toBe('Input "color": must be an integer 0-16777215, #rrggbb or 0xrrggbb');
    expect(runner.outputs).toMatchObject({ ok: 'false', 'event-id': '', 'metric-id': '' });
    expect(transport.sent).toEqual([]);
  });

  it('a dry run prints the request with the webhook masked and sends nothing', async () => {
    const runner = new StandIn({ ...base, 'dry-run': 'true', 'chat-webhook-url': WEBHOOK });
    const transport = new FakeTransport();
    await run(runner, transport, env());
    const printed = runner.calls.filter(([kind]) => kind === 'info').map(([, line]) => line);
    expect(printed.join('\n')).toContain('"url": "***"');
    expect(printed.join('\n')).not.toContain(TOKEN);
    expect(transport.sent).toEqual([]);
    expect(runner.outputs.ok).toBe('true');
  });
});

describe('the Action step with quarantine: true', () => {
  /** The server's id of a test without class or file (docs/tests.md), written out. */
  const idOf = (suite: string, name: string) =>
    createHash('sha256')
      .update(['t', suite, '', name, ''].join('\u0000'))
      .digest('base64url')
      .slice(0, 16);

  async function step(quarantined: string[]) {
    const environment = env();
    const report = join(dir as string, 'junit.xml');
    writeFileSync(
      report,
      '<testsuite name="gate"><testcase name="ok"/><testcase name="flaky"><failure message="t"/></testcase></testsuite>',
    );
    const runner = new StandIn({ ...base, 'junit-files': report, quarantine: 'true' });
    const list = quarantined.map((name) => ({ id: idOf('gate', name), reason: 'known flake' }));
    const transport = new FakeTransport().answer(
      { status: 200, body: JSON.stringify({ projectId: 'p1', tests: list }) },
      { status: 200, body: '{"message":"ok","id":"e1"}' },
      { status: 200, body: '{"message":"ok","id":"m1"}' },
      { status: 200, body: '{"message":"Tests ingested successfully.","runId":"r1","cases":2}' },
      { status: 404, body: '{"error":"Not found."}' },
    );
    await run(runner, transport, environment);
    const event = transport.sent.find((r) => r.url.endsWith('/stats/ingest-events'));
    return {
      runner,
      transport,
      status: (event as { body: { payload: { status: string } } }).body.payload.status,
    };
  }

  it('is green when every failed test is quarantined, saying so per test', async () => {
    const { runner, transport, status } = await step(['flaky']);
    expect(transport.sent[0]?.url).toBe('https://stats.example/stats/get-quarantine?projectId=p1');
    expect(status).toBe('success');
    expect(runner.failed).toBeUndefined();
    expect(runner.calls).toContainEqual([
      'info',
      'quarantined: gate › flaky failed (quarantined: known flake)',
    ]);
  });

  it('fails the step when a failed test is not quarantined', async () => {
    const { runner, status } = await step(['ok']);
    expect(status).toBe('failure');
    expect(runner.failed).toBe('1 failed test(s) not quarantined: gate › flaky');
  });
});
