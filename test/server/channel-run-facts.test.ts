import { describe, expect, it, onTestFinished } from 'vitest';
import { SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import {
  buildReport,
  type ChannelStand,
  channelStand,
  DISCORD_PATH,
  DISCORD_URL,
  regressionThreshold,
  runContext,
  SLACK_URL,
} from '../helpers/channel-server.js';
import { fakeTeams } from '../helpers/fake-platforms.js';
import { fakeSlackApi } from '../helpers/fake-slack-api.js';

/**
 * A build message tells its run's duration against the base branch's median and the run's top
 * regressions with their change (issue 30), and a regression judged on the run's metrics after
 * the message was sent sends it again: on Discord an edit (PATCH) of the same message, on Slack's
 * incoming webhooks a new message, to a generic webhook an update under the run's `webhook-id`.
 * Through the fake platforms, which enforce their formats and limits.
 */

/** A metric record of the run: `values` (t, u, …), its build duration in ms. */
async function metrics(
  stand: ChannelStand,
  runId: number,
  values: Record<string, number>,
  attempt = 1,
) {
  const res = await stand.server.call('POST', Paths.ingestMetrics, {
    key: stand.me.apiKey,
    body: {
      projectId: stand.me.projectId,
      payload: {
        ...values,
        directions: Object.fromEntries(
          Object.keys(values)
            .filter((key) => key !== 'duration_ms')
            .map((key) => [key, 'lower']),
        ),
        ...runContext(runId, attempt),
      },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function alerts(stand: ChannelStand, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await stand.server.call(
      'GET',
      `${VerdictPaths.getAlerts}?projectId=${stand.me.projectId}`,
      { key: stand.me.apiKey },
    );
    if (res.json().alerts.length >= count) return;
    if (Date.now() > deadline) throw new Error(`alerts: ${res.body}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Every outbox job done (none pending), at least `count` of them of the channels' kinds. */
async function settled(stand: ChannelStand) {
  await stand.settled('channel-message', 1);
  await stand.settled('channel-run-update', 0);
}

type Field = { name: string; value: string };
const fieldsOf = (body: unknown) =>
  ((body as { embeds: { fields: Field[] }[] }).embeds[0]?.fields ?? []) as Field[];
const field = (body: unknown, name: RegExp) => fieldsOf(body).find((f) => name.test(f.name));

/**
 * The base: two runs of main whose t was 100 and whose build took 60 s and 64 s (median 60 s as
 * the statistics compute it, within their 2 %), judged before the run under test.
 */
async function base(stand: ChannelStand) {
  await regressionThreshold(stand, 't');
  await regressionThreshold(stand, 'u');
  await metrics(stand, 101, { t: 100, u: 10, duration_ms: 60_000 });
  await metrics(stand, 102, { t: 100, u: 10, duration_ms: 64_000 });
}

describe('a build message with its duration against the base and its regressions', () => {
  it("Discord: the run's message is edited in place when its metrics' regressions are judged", async () => {
    const stand = await channelStand('run-facts-discord');
    await stand.channel('discord', DISCORD_URL, { notify: ['builds'] });
    await base(stand);
    await buildReport(stand, 555, 'success');
    await stand.discord.service.waitFor(1);
    // The run's metrics, after its message: t doubled, u tripled, the build 90 s.
    await metrics(stand, 555, { t: 200, u: 30, duration_ms: 90_000 });
    await alerts(stand, 2);
    await stand.discord.service.waitFor(1, (r) => r.method === 'PATCH');
    await settled(stand);

    // One message, posted once and edited: it now tells the duration and the regressions.
    const messages = stand.discord.messages();
    expect(messages).toHaveLength(1);
    const [message] = messages;
    expect(stand.discord.limited()).toBe(0);
    const posts = stand.discord.service.requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.path)).toEqual([DISCORD_PATH]);
    const patches = stand.discord.service.requests.filter((r) => r.method === 'PATCH');
    expect(patches.every((r) => r.path === `${DISCORD_PATH}/messages/${message?.id}`)).toBe(true);
    expect(field(message?.body, /^Duration$/)?.value).toMatch(
      /^1\.5 min \(\+\d+(\.\d+)? s, \+\d+ %\) vs main's median$/,
    );
    // The largest change first: u +200 %, then t +100 %.
    expect(field(message?.body, /^Regressions/)).toEqual({
      name: 'Regressions (2)',
      value: '• u: 30 (+200 %)\n• t: 200 (+100 %)',
      inline: false,
    });
    // The build's own facts are still there.
    expect(field(message?.body, /^Run$/)?.value).toContain('#555');
  });

  it('a regression judged before the build is reported is in its first message; a re-run does not show it', async () => {
    const stand = await channelStand('run-facts-first');
    await stand.channel('discord', DISCORD_URL, { notify: ['builds'] });
    await base(stand);
    await metrics(stand, 556, { t: 300, u: 10, duration_ms: 61_000 });
    await alerts(stand, 1);
    await buildReport(stand, 556, 'failure');
    await stand.discord.service.waitFor(1);
    await settled(stand);
    const [message] = stand.discord.messages();
    expect(message?.edits).toBe(0);
    expect(field(message?.body, /^Regressions/)?.value).toBe('• t: 300 (+200 %)');
    expect(field(message?.body, /^Duration$/)?.value).toMatch(/vs main's median$/);

    // The re-run (attempt 2) edits the message; the first attempt's regressions are not its own.
    await buildReport(stand, 556, 'success', 2);
    await stand.discord.service.waitFor(1, (r) => r.method === 'PATCH');
    await settled(stand);
    const [edited] = stand.discord.messages();
    expect(field(edited?.body, /^Run$/)?.value).toContain('(attempt 2)');
    expect(field(edited?.body, /^Regressions/)).toBeUndefined();
    expect(field(edited?.body, /^Duration$/)).toBeUndefined();
  });

  it('Slack incoming webhooks get a new message for a regression, not for a duration; a generic webhook a new message of the same run', async () => {
    const stand = await channelStand('run-facts-slack');
    await stand.channel('slack', SLACK_URL, { notify: ['builds'] });
    await stand.channel('webhook', stand.receiverUrl('/hook'), { notify: ['builds'] });
    await base(stand);
    // A run without a regression: its duration alone is no reason for another Slack message.
    await buildReport(stand, 700, 'success');
    await stand.slack.service.waitFor(1);
    await metrics(stand, 700, { t: 100, u: 10, duration_ms: 62_000 });
    // A run whose metrics regress.
    await buildReport(stand, 701, 'success');
    await stand.slack.service.waitFor(2);
    await metrics(stand, 701, { t: 250, u: 10, duration_ms: 62_000 });
    await alerts(stand, 1);
    await stand.slack.service.waitFor(3, () => true, 10_000);
    await settled(stand);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const slack = stand.slack
      .accepted()
      .map((r) => r.body as { blocks: { text?: { text: string } }[] });
    expect(slack).toHaveLength(3);
    expect(stand.slack.limited()).toBe(0);
    const texts = (i: number) => (slack[i]?.blocks ?? []).map((b) => b.text?.text ?? '');
    expect(texts(2).some((t) => t === '*Regressions (1)*\n• t: 250 (+150 %)')).toBe(true);
    expect(texts(0).some((t) => t.startsWith('*Regressions'))).toBe(false);

    // The generic webhook: the run's reports share data.run.key and the webhook-id of its first
    // message, numbered by data.run.sequence.
    type Hook = {
      type: string;
      data: { run: { key: string; sequence: number }; facts?: Record<string, unknown> };
    };
    const hooks = stand.receiver.requests.map((r) => ({
      id: r.headers['webhook-id'],
      body: r.body as Hook,
    }));
    const of701 = hooks.filter((h) => h.body.data.run.key.includes('"701"'));
    expect(of701.length).toBeGreaterThanOrEqual(2);
    expect(new Set(of701.map((h) => h.id)).size).toBe(1);
    const sequences = of701.map((h) => h.body.data.run.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(of701.at(-1)?.body.data.facts).toMatchObject({
      attempt: 1,
      regressionCount: 1,
      regressions: [{ key: 't', value: 250, baseline: 100, change: 1.5 }],
      duration: { key: 'duration_ms', value: 62_000, baseBranch: 'main' },
    });
  });
});

describe('the Slack app and Teams', () => {
  it("a Slack app channel's message is updated with chat.update; Teams gets a new card for the regression", async () => {
    const TOKEN = 'xoxb-1111111111-2222222222-bOtToKeNsEcReT0123456789';
    const SLACK_CHANNEL = 'C0123ABCDEF';
    const SIG = 'tEaMsSiG0123456789abcdef';
    const slackApi = fakeSlackApi([TOKEN], [SLACK_CHANNEL]);
    const teams = fakeTeams(SIG);
    await slackApi.service.start();
    await teams.service.start();
    onTestFinished(async () => {
      await slackApi.service.stop();
      await teams.service.stop();
    });
    const stand = await channelStand('run-facts-app', {
      SLACK_API_ORIGIN: slackApi.service.origin,
      TEAMS_WEBHOOK_ORIGIN: teams.service.origin,
    });
    await stand.channel(
      'slack-app',
      `https://acme.slack.com/archives/${SLACK_CHANNEL}`,
      { notify: ['builds'] },
      { token: TOKEN },
    );
    await stand.channel(
      'teams',
      `https://prod-12.westeurope.logic.azure.com/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sig=${SIG}`,
      { notify: ['builds'] },
    );
    await base(stand);
    await buildReport(stand, 801, 'success');
    await slackApi.service.waitFor(1);
    await teams.service.waitFor(1);
    await metrics(stand, 801, { t: 100, u: 40, duration_ms: 70_000 });
    await alerts(stand, 1);
    await teams.service.waitFor(2);
    await settled(stand);

    const [message] = slackApi.messages();
    expect(slackApi.messages()).toHaveLength(1);
    expect(message?.edits).toBe(1);
    const texts = (message?.blocks ?? []).map(
      (b) => (b.text as { text?: string } | undefined)?.text ?? '',
    );
    expect(texts).toContain('*Regressions (1)*\n• u: 40 (+300 %)');
    const fields = (message?.blocks ?? []).flatMap(
      (b) => (b.fields as { text: string }[] | undefined) ?? [],
    );
    expect(fields.some((f) => /^\*Duration\*\n1\.17 min \(\+/.test(f.text))).toBe(true);

    // Teams cannot edit: the first card, then one with the regression.
    const cards = teams.accepted().map((r) => JSON.stringify(r.body));
    expect(cards).toHaveLength(2);
    expect(cards[0]).not.toContain('Regressions');
    expect(cards[1]).toContain('**Regressions (1)**\\n\\n- u: 40 (+300 %)');
    expect(teams.limited()).toBe(0);
  });
});

describe('Discord threads', () => {
  const THREAD = '998877665544332211';

  it('a thread_id is validated, kept, sent on execute and on the edit, and can be removed', async () => {
    const stand = await channelStand('run-facts-thread', {}, [THREAD]);
    const { server, me } = stand;
    const create = (body: Record<string, unknown>) =>
      server.call('POST', Paths.createChannel, {
        key: me.apiKey,
        body: { projectId: me.projectId, name: 'x', rules: { notify: ['builds'] }, ...body },
      });
    for (const bad of ['12', 'abc', '123456789012345678901', 7]) {
      const res = await create({ kind: 'discord', url: DISCORD_URL, thread_id: bad });
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.json()).toMatchObject({ error: SpecError.invalidBody });
      expect(res.json().issues).toEqual([expect.objectContaining({ path: 'thread_id' })]);
    }
    const onSlack = await create({ kind: 'slack', url: SLACK_URL, thread_id: THREAD });
    expect(onSlack.statusCode).toBe(400);
    expect(onSlack.json().issues).toEqual([
      { path: 'thread_id', message: 'is for discord channels only' },
    ]);
    const list = await server.call('GET', `${Paths.getChannels}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(list.json().channels).toEqual([]);

    const id = await stand.channel(
      'discord',
      DISCORD_URL,
      { notify: ['builds'] },
      { thread_id: THREAD },
    );
    const listed = await server.call('GET', `${Paths.getChannels}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(listed.json().channels[0]).toMatchObject({ id, thread_id: THREAD });

    await buildReport(stand, 900, 'failure');
    await stand.discord.service.waitFor(1);
    await buildReport(stand, 900, 'success', 2);
    await stand.discord.service.waitFor(1, (r) => r.method === 'PATCH');
    const [post, patch] = stand.discord.service.requests;
    expect(post?.query.get('thread_id')).toBe(THREAD);
    expect(post?.query.get('wait')).toBe('true');
    expect(patch?.method).toBe('PATCH');
    expect(patch?.query.get('thread_id')).toBe(THREAD);
    expect(patch?.replied).toBe(200);
    const [message] = stand.discord.messages();
    expect(message).toMatchObject({ threadId: THREAD, edits: 1 });

    // update-channel: a thread on another kind is refused; null removes it.
    const slackId = await stand.channel('slack', SLACK_URL, { notify: ['alerts'] });
    const refused = await server.call('POST', Paths.updateChannel, {
      key: me.apiKey,
      body: { channelId: slackId, thread_id: THREAD },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ error: 'thread_id is for discord channels only.' });
    const bad = await server.call('POST', Paths.updateChannel, {
      key: me.apiKey,
      body: { channelId: id, thread_id: '1' },
    });
    expect(bad.statusCode).toBe(400);
    const cleared = await server.call('POST', Paths.updateChannel, {
      key: me.apiKey,
      body: { channelId: id, thread_id: null },
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().thread_id).toBeNull();
    await buildReport(stand, 901, 'failure');
    await stand.discord.service.waitFor(3);
    expect(stand.discord.service.requests[2]?.query.get('thread_id')).toBeNull();
  });

  it('the fake Discord refuses a thread that is not its channel’s: the delivery fails for good', async () => {
    const stand = await channelStand('run-facts-unknown-thread', {}, [THREAD]);
    await stand.channel(
      'discord',
      DISCORD_URL,
      { notify: ['builds'] },
      { thread_id: '112233445566778800' },
    );
    await buildReport(stand, 902, 'failure');
    await stand.discord.service.waitFor(1);
    await stand.settled('channel-message', 1);
    expect(await stand.jobs('channel-message')).toEqual([{ status: 'failed' }]);
    expect(stand.discord.service.requests[0]?.replied).toBe(400);
    expect(stand.discord.messages()).toEqual([]);
  });
});
