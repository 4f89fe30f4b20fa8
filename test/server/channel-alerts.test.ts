import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { selectRows } from '../helpers/database.js';
import { type FakePlatform, fakeSlack } from '../helpers/fake-platforms.js';
import { FakeService } from '../helpers/fake-service.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Regression alerts as a channel rule (issue 30's "regression alerts", issue 23's alerts): a
 * channel whose rules say `alerts` hears of each regression of the default branch, on the
 * branches it names, through the outbox; a pull request's regressions and channels without the
 * rule hear nothing of them.
 */

const SLACK_PATH = '/services/T0001AAAA/B0002BBBB/sLaCkSeCrEt0123456789';
const SLACK_URL = `https://hooks.slack.com${SLACK_PATH}`;

let server: TestServer;
let me: TestAccount;
let slack: FakePlatform;
let receiver: FakeService;

beforeEach(async () => {
  slack = fakeSlack([SLACK_PATH]);
  receiver = new FakeService().fallback({ status: 204 });
  for (const fake of [slack.service, receiver]) await fake.start();
  server = await startTestServer({
    SLACK_WEBHOOK_ORIGIN: slack.service.origin,
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
    OUTBOX_RETRY_BASE_MS: '50',
    OUTBOUND_TIMEOUT_MS: '2000',
    SECRETS_KEY: 'channel-alerts-test-key-0123456789abcdefgh',
  });
  await server.app.ready();
  me = await server.account();
});
afterEach(async () => {
  await server?.close();
  for (const fake of [slack.service, receiver]) await fake.stop();
});

async function channel(kind: string, url: string, rules: Record<string, unknown>) {
  const res = await server.call('POST', Paths.createChannel, {
    key: me.apiKey,
    body: { projectId: me.projectId, kind, name: kind, url, rules },
  });
  expect(res.statusCode, res.body).toBe(201);
}

async function metrics(branch: string, commit: string, t: number, pr?: object) {
  const res = await server.call('POST', Paths.ingestMetrics, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      payload: {
        t,
        directions: { t: 'lower' },
        ci: { branch, commit, ...(pr ? { pull_request: pr } : {}) },
      },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function alertCount(count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await server.call('GET', `${VerdictPaths.getAlerts}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    if (res.json().alerts.length >= count) return;
    if (Date.now() > deadline) throw new Error(`alerts: ${res.body}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const channelJobs = () =>
  selectRows(server.database, "SELECT status FROM outbox WHERE kind = 'channel-message'");

describe('the alerts rule', () => {
  it('a regression of the default branch reaches the channels that ask for alerts, and no other', async () => {
    await channel('slack', SLACK_URL, { notify: ['alerts'], branches: ['main'] });
    await channel('webhook', `http://127.0.0.1:${receiver.port}/ci-hook`, {
      notify: ['alerts'],
      // eventTypes filter events; an alert is none, so it does not keep this one out.
      eventTypes: ['build'],
    });
    // Every build and failure, but not alerts: hears nothing of them.
    await channel('webhook', `http://127.0.0.1:${receiver.port}/builds-only`, {
      notify: ['builds', 'failures', 'changes'],
    });
    await server.call('POST', VerdictPaths.createThreshold, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        key: 't',
        branch: '*',
        test: 'percentage',
        upper_boundary: 0.1,
      },
    });
    await metrics('main', 'aaaaaaa0', 100);
    // A pull request's regression is an alert of its own, announced nowhere.
    await metrics('feature', 'fffffff1', 300, {
      number: 1,
      target_branch: 'main',
      base_sha: 'aaaaaaa0',
    });
    await metrics('main', 'aaaaaaa1', 200);
    await alertCount(2);

    await slack.service.waitFor(1);
    await receiver.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await channelJobs()).toEqual([{ status: 'delivered' }, { status: 'delivered' }]);
    expect(slack.service.requests).toHaveLength(1);
    const text = (slack.accepted()[0]?.body as { text: string } | undefined)?.text;
    expect(text).toBe('📉 Regression: t · test project');

    expect(receiver.requests.map((r) => r.path)).toEqual(['/ci-hook']);
    const body = receiver.requests[0]?.body as { type: string; data: Record<string, unknown> };
    expect(body.type).toBe('ci-stats.alert');
    // 200 against a baseline of 100: beyond 100 × (1 + 0.1), the upper limit.
    expect(body.data).toMatchObject({
      eventType: 'alert',
      branch: 'main',
      commit: 'aaaaaaa1',
      alert: { key: 't', value: 200, baseline: 100, side: 'upper', test: 'percentage' },
    });
    expect((body.data.alert as { limit: number }).limit).toBeCloseTo(110, 9);
  });
});
