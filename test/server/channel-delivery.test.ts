import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { selectRows } from '../helpers/database.js';
import { type FakePlatform, fakeDiscord, fakeSlack, fakeTeams } from '../helpers/fake-platforms.js';
import { FakeService } from '../helpers/fake-service.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Channels' messages through the outbox to fake Slack, Discord, Teams and generic receivers on
 * 127.0.0.1 that enforce each platform's rules: what is sent (rules), in which format, paced so
 * that no platform ever answers 429, signed so that the reference library verifies it, and never
 * to a private address.
 */

const SLACK_PATH = '/services/T0001AAAA/B0002BBBB/sLaCkSeCrEt0123456789';
const SLACK_URL = `https://hooks.slack.com${SLACK_PATH}`;
const DISCORD_ID = '112233445566778899';
const DISCORD_TOKEN = 'dIsCoRdToKeN_0123456789-abcdefghijklmnopqrstuvwxyz';
const DISCORD_URL = `https://discord.com/api/webhooks/${DISCORD_ID}/${DISCORD_TOKEN}`;
const TEAMS_SIG = 'tEaMsSiG0123456789abcdef';
const TEAMS_URL = `https://prod-12.westeurope.logic.azure.com/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sv=1.0&sig=${TEAMS_SIG}`;
const SHA = '4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39';

let server: TestServer;
let me: TestAccount;
let slack: FakePlatform;
let discord: FakePlatform;
let teams: FakePlatform;
let receiver: FakeService;

beforeEach(async () => {
  slack = fakeSlack([SLACK_PATH]);
  discord = fakeDiscord({ [DISCORD_ID]: DISCORD_TOKEN });
  teams = fakeTeams(TEAMS_SIG);
  receiver = new FakeService().fallback({ status: 204 });
  for (const fake of [slack.service, discord.service, teams.service, receiver]) await fake.start();
  server = await startTestServer({
    SLACK_WEBHOOK_ORIGIN: slack.service.origin,
    DISCORD_API_ORIGIN: discord.service.origin,
    TEAMS_WEBHOOK_ORIGIN: teams.service.origin,
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
    PUBLIC_URL: 'https://stats.example.com',
    OUTBOX_RETRY_BASE_MS: '50',
    OUTBOUND_TIMEOUT_MS: '2000',
    SECRETS_KEY: 'channel-delivery-test-key-0123456789abcdef',
  });
  await server.app.ready();
  me = await server.account();
});
afterEach(async () => {
  await server?.close();
  for (const fake of [slack.service, discord.service, teams.service, receiver]) await fake.stop();
});

async function channel(kind: string, url: string, rules: Record<string, unknown>) {
  const res = await server.call('POST', Paths.createChannel, {
    key: me.apiKey,
    body: { projectId: me.projectId, kind, name: kind, url, rules },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; signingSecret?: string };
}

async function build(
  status: string,
  branch: string,
  extra: Record<string, unknown> = {},
  buildNumber = '77',
) {
  const res = await server.call('POST', Paths.ingestEvents, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      eventType: 'build',
      description: `${status} on ${branch}`,
      payload: {
        status,
        ci: {
          provider: 'github',
          repository: 'acme/web',
          commit: SHA,
          branch,
          build_number: buildNumber,
          build_url: 'https://github.com/acme/web/actions/runs/123',
          job: 'test',
        },
        github: { workflow: 'CI' },
        tests: {
          total: 120,
          passed: 117,
          failed: 2,
          errors: 0,
          skipped: 1,
          duration_ms: 42_000,
          failures: [{ name: 'checkout applies the discount' }, { name: 'checkout rounds' }],
        },
        ...extra,
      },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

const channelJobs = () =>
  selectRows(
    server.database,
    "SELECT status, attempts, last_error FROM outbox WHERE kind = 'channel-message' ORDER BY id",
  );

async function settledJobs(count: number, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const jobs = await channelJobs();
    if (jobs.length >= count && jobs.every((job) => job.status !== 'pending')) return jobs;
    if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(jobs)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('rules', () => {
  it('failures on main: a success or failure on a feature branch notifies nobody', async () => {
    await channel('slack', SLACK_URL, {
      notify: ['failures'],
      branches: ['main'],
      mention: '<!subteam^S0123ABC>',
    });
    await build('success', 'feature/login');
    await build('failure', 'feature/login');
    await build('success', 'main');
    await build('failure', 'main');
    // One job only was queued (the others matched no rule), and the one message arrived.
    expect(await settledJobs(1)).toEqual([{ status: 'delivered', attempts: 1, last_error: null }]);
    const [message] = slack.accepted();
    expect(slack.service.requests).toHaveLength(1);
    // Block Kit: status header, fields with links, description, failed tests, links back.
    const body = message?.body as { text: string; blocks: Record<string, unknown>[] };
    expect(body.text).toBe('<!subteam^S0123ABC> ❌ Failed · test project · CI · test');
    expect(body.blocks).toEqual([
      {
        type: 'header',
        text: { type: 'plain_text', text: '❌ Failed · test project · CI · test', emoji: true },
      },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: '*Branch*\nmain' },
          {
            type: 'mrkdwn',
            text: `*Commit*\n<https://github.com/acme/web/commit/${SHA}|4f2a9c1>`,
          },
          { type: 'mrkdwn', text: '*Run*\n<https://github.com/acme/web/actions/runs/123|#77>' },
          { type: 'mrkdwn', text: '*Tests*\n117 passed, 2 failed, 1 skipped of 120 in 42 s' },
        ],
      },
      { type: 'section', text: { type: 'mrkdwn', text: 'failure on main' } },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: '*Failed tests*\n• checkout applies the discount\n• checkout rounds',
        },
      },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `<https://github.com/acme/web/actions/runs/123|Open the run>  ·  <https://stats.example.com/dashboard/projects/${me.projectId}|test project on ci-stats>`,
          },
        ],
      },
    ]);
  });

  it('status changes on Discord: broken and fixed only, the role mentioned on the failure', async () => {
    await channel('discord', DISCORD_URL, { notify: ['changes'], mention: '<@&998877>' });
    for (const status of ['success', 'success', 'failure', 'failure', 'success', 'success']) {
      await build(status, 'main');
    }
    await settledJobs(2);
    const messages = discord.accepted().map((r) => r.body as Record<string, unknown>);
    expect(messages.map((m) => (m.embeds as { title: string }[] | undefined)?.[0]?.title)).toEqual([
      '❌ Failed (broken) · test project · CI · test',
      '✅ Passed (fixed) · test project · CI · test',
    ]);
    expect(messages[0]).toMatchObject({
      content: '<@&998877>',
      allowed_mentions: { parse: [], roles: ['998877'] },
    });
    expect(messages[1]).not.toHaveProperty('content');
    expect(messages[1]).toMatchObject({ allowed_mentions: { parse: [] } });
    const embed = (messages[0]?.embeds as Record<string, unknown>[] | undefined)?.[0];
    expect(embed).toMatchObject({
      url: 'https://github.com/acme/web/actions/runs/123',
      color: 0xcf222e,
      fields: expect.arrayContaining([
        {
          name: 'Commit',
          value: `[4f2a9c1](https://github.com/acme/web/commit/${SHA})`,
          inline: true,
        },
      ]),
    });
    expect(discord.accepted()[0]?.query.get('wait')).toBe('true');
  });

  it('a release on Teams as an Adaptive Card; builds do not reach a releases-only channel', async () => {
    await channel('teams', TEAMS_URL, { notify: ['releases'] });
    await build('failure', 'main');
    const res = await server.call('POST', Paths.ingestEvents, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        eventType: 'release',
        payload: { version: 'v1.4.0', name: 'Spring', notes: 'Faster builds.\nFewer flakes.' },
      },
    });
    expect(res.statusCode).toBe(200);
    await settledJobs(1);
    expect(teams.accepted()).toHaveLength(1);
    const teamsBody = teams.accepted()[0]?.body as {
      attachments: { content: Record<string, unknown> }[];
    };
    const card = teamsBody.attachments[0]?.content;
    expect(card).toMatchObject({
      type: 'AdaptiveCard',
      version: '1.4',
      body: [
        { type: 'TextBlock', text: '🚀 Released v1.4.0 · test project', color: 'accent' },
        {
          type: 'FactSet',
          facts: [
            { title: 'Version', value: 'v1.4.0' },
            { title: 'Name', value: 'Spring' },
          ],
        },
        { type: 'TextBlock', text: 'Faster builds.\nFewer flakes.' },
      ],
      actions: [{ type: 'Action.OpenUrl', title: 'Project page' }],
    });
  });
});

describe('pacing', () => {
  // The burst: 500 builds finishing together on one channel. At Discord's 5 requests per
  // 2 s that is 200 s of real time (the sending slots have no fake clock), spent waiting; the
  // sender spaces Discord's messages 500 ms after each answer (channel-sender.ts), so 250 s plus
  // 500 answers' time: 258 s in a CI run (27 Nov, both backends), where the old 270 s limit
  // left 12 s. The limits allow answers of 250 ms on a loaded machine.
  it('a burst of 500 builds on one Discord webhook: all delivered, in order, never a 429', async () => {
    await channel('discord', DISCORD_URL, { notify: ['builds'] });
    const count = 500;
    for (let i = 1; i <= count; i++) await build('success', 'main', {}, String(i));
    await settledJobs(count, 375_000);
    expect(discord.limited()).toBe(0);
    const accepted = discord.accepted();
    // In the order of the builds: each message names its build's number.
    expect(accepted.map((r) => orderOf(r.body))).toEqual(
      Array.from({ length: count }, (_, i) => i + 1),
    );
    // At most 5 in any 2 s, as the fake enforced (it would have answered 429 otherwise).
    for (let i = 5; i < accepted.length; i++) {
      expect((accepted[i]?.at ?? 0) - (accepted[i - 5]?.at ?? 0)).toBeGreaterThanOrEqual(2_000);
    }
    expect((await channelJobs()).every((job) => job.attempts === 1)).toBe(true);
  }, 400_000);

  it('Slack: one message a second per webhook, never a 429; a 429 it still gives holds the channel', async () => {
    await channel('slack', SLACK_URL, { notify: ['builds'] });
    for (let i = 0; i < 4; i++) await build('success', 'main');
    await settledJobs(4);
    expect(slack.limited()).toBe(0);
    const times = slack.accepted().map((r) => r.at);
    expect(times).toHaveLength(4);
    for (let i = 1; i < times.length; i++) {
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(1_000);
    }

    // Slack says to wait (its limit is shared with other senders): retried after Retry-After.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    slack.service.queue({ status: 429, text: 'rate_limited', headers: { 'retry-after': '1' } });
    const before = slack.service.requests.length;
    await build('success', 'main');
    const all = await slack.service.waitFor(before + 2, () => true, 10_000);
    const [refused, retried] = all.slice(before);
    expect(refused?.replied).toBe(429);
    expect((retried?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
    expect((await settledJobs(5)).at(-1)).toEqual({
      status: 'delivered',
      attempts: 2,
      last_error: null,
    });
  }, 30_000);
});

/** The build number a Discord message's Run field shows (`#12`). */
function orderOf(body: unknown): number {
  const embed = (body as { embeds: { fields: { name: string; value: string }[] }[] }).embeds[0];
  return Number(embed?.fields.find((f) => f.name === 'Run')?.value.match(/#(\d+)/)?.[1]);
}

describe('generic webhooks', () => {
  it('signed per Standard Webhooks: the reference library verifies it; a retry keeps its id', async () => {
    const made = await channel('webhook', `http://127.0.0.1:${receiver.port}/ci-hook`, {
      notify: ['failures'],
    });
    receiver.queue({ status: 503 });
    await build('failure', 'main');
    await settledJobs(1);
    const [first, second] = receiver.requests;
    expect(first?.replied).toBe(503);
    expect(second?.replied).toBe(204);
    const verifier = new Webhook(made.signingSecret as string);
    for (const request of [first, second]) {
      const headers = request?.headers as Record<string, string>;
      expect(verifier.verify(request?.raw as string, headers)).toMatchObject({
        type: 'ci-stats.build.failed',
        data: { projectId: me.projectId, status: 'failure', branch: 'main', commit: SHA },
      });
    }
    expect(first?.headers['webhook-id']).toMatch(/^msg_/);
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    // A tampered body, or another secret, does not verify.
    const headers = second?.headers as Record<string, string>;
    expect(() => verifier.verify(`${second?.raw} `, headers)).toThrow();
    const stranger = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
    expect(() => stranger.verify(second?.raw as string, headers)).toThrow();
  });

  it('a name resolving to a private address is refused at connection time, for good', async () => {
    // localhost resolves to 127.0.0.1, which is allow-listed only as 127.0.0.1:<port>.
    await channel('webhook', `https://localhost:${receiver.port}/hook`, { notify: ['builds'] });
    await build('success', 'main');
    const [job] = await settledJobs(1);
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(String(job?.last_error)).toContain('non-public address');
    expect(receiver.requests).toEqual([]);
  });
});

describe('never off-target', () => {
  it('a channel deleted while its messages wait gets none of them', async () => {
    const made = await channel('slack', SLACK_URL, { notify: ['builds'] });
    for (let i = 0; i < 3; i++) await build('success', 'main');
    await slack.service.waitFor(1);
    const deleted = await server.call('POST', Paths.deleteChannel, {
      key: me.apiKey,
      body: { channelId: made.id },
    });
    expect(deleted.statusCode).toBe(200);
    const jobs = await settledJobs(3);
    expect(jobs.map((job) => job.status)).toEqual(['delivered', 'failed', 'failed']);
    expect(jobs[2]?.last_error).toBe('the channel was deleted');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slack.service.requests).toHaveLength(1);
  });

  it('rules changed after an event was stored are judged again when it is sent', async () => {
    const made = await channel('slack', SLACK_URL, { notify: ['builds'] });
    await build('success', 'main');
    await build('success', 'main');
    await slack.service.waitFor(1);
    const updated = await server.call('POST', Paths.updateChannel, {
      key: me.apiKey,
      body: { channelId: made.id, rules: { notify: ['failures'] } },
    });
    expect(updated.statusCode).toBe(200);
    await settledJobs(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slack.service.requests).toHaveLength(1);
  });
});

describe('test-channel', () => {
  it('sends a sample now and says what the platform answered, never the secret', async () => {
    const made = await channel('slack', SLACK_URL, { notify: ['failures'] });
    const ok = await server.call('POST', Paths.testChannel, {
      key: me.apiKey,
      body: { channelId: made.id },
    });
    expect(ok.json()).toEqual({ delivered: true, error: null });
    expect(slack.accepted().map((r) => (r.body as { text: string }).text)).toEqual([
      '❌ Failed (broken) · test project · CI · test',
    ]);
    // It shows what a build's message says once its tests arrive: new and flaky failures apart.
    const sample = slack.accepted()[0]?.body as { blocks: { text?: { text: string } }[] };
    expect(sample.blocks.map((b) => b.text?.text)).toEqual(
      expect.arrayContaining([
        '*New failures (1)*\n• checkout › applies the discount',
        '*Known flaky (1)*\n• checkout › rounds the total',
      ]),
    );

    const wrong = await channel(
      'slack',
      'https://hooks.slack.com/services/T0001AAAA/B0002BBBB/revokedSecret42',
      { notify: ['failures'] },
    );
    const refused = await server.call('POST', Paths.testChannel, {
      key: me.apiKey,
      body: { channelId: wrong.id },
    });
    expect(refused.json()).toEqual({
      delivered: false,
      error: 'Slack answered HTTP 404: no_service',
    });
    expect(refused.body).not.toContain('revokedSecret42');
  });
});
