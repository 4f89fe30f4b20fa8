import { beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { type ChannelStand, channelStand, SLACK_URL } from '../helpers/channel-server.js';

/**
 * Regression alerts as a channel rule (issue 30's "regression alerts", issue 23's alerts): a
 * channel whose rules say `alerts` hears of each regression of the default branch, on the
 * branches it names, through the outbox; a pull request's regressions and channels without the
 * rule hear nothing of them.
 */

let stand: ChannelStand;
let server: ChannelStand['server'];
let me: ChannelStand['me'];
let slack: ChannelStand['slack'];
let receiver: ChannelStand['receiver'];

beforeEach(async () => {
  stand = await channelStand('channel-alerts');
  ({ server, me, slack, receiver } = stand);
});

const channel = async (kind: string, url: string, rules: Record<string, unknown>) => {
  await stand.channel(kind, url, rules);
};

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

const channelJobs = () => stand.jobs('channel-message');

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
