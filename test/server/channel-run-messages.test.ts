import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { selectRows } from '../helpers/database.js';
import {
  type FakeDiscord,
  type FakePlatform,
  fakeDiscord,
  fakeSlack,
} from '../helpers/fake-platforms.js';
import { FakeService } from '../helpers/fake-service.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * One message per build, updated in place (issue 30): a run's first report makes the message,
 * its later reports (a re-run's result) edit it on Discord (`?wait=true` gives the id, then
 * PATCH), through fakes that enforce Discord's rules (the wait parameter, the edit path, 5
 * requests per 2 s per webhook, 404 Unknown Message); Slack's incoming webhooks cannot edit, so
 * there each report is a message; a generic webhook's body names the run. Queued reports of one
 * run are coalesced into the latest.
 */

const SLACK_PATH = '/services/T0001AAAA/B0002BBBB/sLaCkSeCrEt0123456789';
const SLACK_URL = `https://hooks.slack.com${SLACK_PATH}`;
const DISCORD_ID = '112233445566778899';
const DISCORD_TOKEN = 'dIsCoRdToKeN_0123456789-abcdefghijklmnopqrstuvwxyz';
const DISCORD_URL = `https://discord.com/api/webhooks/${DISCORD_ID}/${DISCORD_TOKEN}`;
const DISCORD_PATH = `/api/webhooks/${DISCORD_ID}/${DISCORD_TOKEN}`;

let server: TestServer;
let me: TestAccount;
let slack: FakePlatform;
let discord: FakeDiscord;
let receiver: FakeService;

beforeEach(async () => {
  slack = fakeSlack([SLACK_PATH]);
  discord = fakeDiscord({ [DISCORD_ID]: DISCORD_TOKEN });
  receiver = new FakeService().fallback({ status: 204 });
  for (const fake of [slack.service, discord.service, receiver]) await fake.start();
  server = await startTestServer({
    SLACK_WEBHOOK_ORIGIN: slack.service.origin,
    DISCORD_API_ORIGIN: discord.service.origin,
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
    OUTBOX_RETRY_BASE_MS: '50',
    OUTBOUND_TIMEOUT_MS: '2000',
    SECRETS_KEY: 'channel-runs-test-key-0123456789abcdefghij',
  });
  await server.app.ready();
  me = await server.account();
});
afterEach(async () => {
  discord?.service.release();
  await server?.close();
  for (const fake of [slack.service, discord.service, receiver]) await fake.stop();
});

async function channel(kind: string, url: string, rules: Record<string, unknown>) {
  const res = await server.call('POST', Paths.createChannel, {
    key: me.apiKey,
    body: { projectId: me.projectId, kind, name: kind, url, rules },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string };
}

interface Report {
  status: string;
  /** GitHub's run id (the run's identity when `buildId` is not given). */
  runId?: number;
  attempt?: number;
  /** The neutral `ci.build_id`, which other CIs give. */
  buildId?: string;
  job?: string;
}

async function report({ status, runId, attempt = 1, buildId, job = 'test' }: Report) {
  const res = await server.call('POST', Paths.ingestEvents, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      eventType: 'build',
      description: `${status} (attempt ${attempt})`,
      payload: {
        status,
        ci: {
          provider: 'github',
          repository: 'acme/web',
          branch: 'main',
          build_number: '77',
          build_url: 'https://github.com/acme/web/actions/runs/555',
          job,
          ...(buildId === undefined ? {} : { build_id: buildId }),
        },
        github: {
          workflow: 'CI',
          ...(runId === undefined ? {} : { run_id: runId, run_attempt: attempt }),
        },
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

const delivered = (attempts: number) => ({ status: 'delivered', attempts, last_error: null });

type Embed = { title: string; description?: string; fields: { name: string; value: string }[] };
const embedOf = (body: unknown) => (body as { embeds: Embed[] }).embeds[0] as Embed;
const runField = (body: unknown) => embedOf(body).fields.find((f) => f.name === 'Run')?.value;

describe('Discord: one message per run, edited in place', () => {
  it("a run's re-run edits its message; another run or another job gets its own", async () => {
    await channel('discord', DISCORD_URL, { notify: ['builds'] });
    await report({ status: 'failure', runId: 555, attempt: 1 });
    expect(await settledJobs(1)).toEqual([delivered(1)]);
    await report({ status: 'success', runId: 555, attempt: 2 });
    await settledJobs(2);

    // The first report posted with ?wait=true (the message, its id, came back)...
    const [post, patch] = discord.service.requests;
    expect(post).toMatchObject({ method: 'POST', path: DISCORD_PATH, replied: 200 });
    expect(post?.query.get('wait')).toBe('true');
    // ...the re-run's result edited that message, at Discord's edit path, with no `wait`.
    const [message] = discord.messages();
    expect(patch).toMatchObject({
      method: 'PATCH',
      path: `${DISCORD_PATH}/messages/${message?.id}`,
      replied: 200,
    });
    expect(patch?.query.has('wait')).toBe(false);
    expect(discord.messages()).toHaveLength(1);
    expect(message?.edits).toBe(1);
    expect(embedOf(message?.body).title).toBe('✅ Passed · test project · CI · test');
    expect(runField(message?.body)).toBe(
      '[#77 (attempt 2)](https://github.com/acme/web/actions/runs/555)',
    );

    // Another run, and another job of the same run, are messages of their own.
    await report({ status: 'success', runId: 556 });
    await settledJobs(3);
    await report({ status: 'failure', runId: 555, attempt: 2, job: 'lint' });
    await settledJobs(4);
    expect(discord.messages().map((m) => [embedOf(m.body).title, m.edits])).toEqual([
      ['✅ Passed · test project · CI · test', 1],
      ['✅ Passed · test project · CI · test', 0],
      ['❌ Failed · test project · CI · lint', 0],
    ]);
    expect(discord.service.requests.map((r) => r.method)).toEqual([
      'POST',
      'PATCH',
      'POST',
      'POST',
    ]);
    expect(discord.limited()).toBe(0);
  });

  it('an older report whose edit failed is not sent again once a newer one was: the message keeps the newest', async () => {
    await channel('discord', DISCORD_URL, { notify: ['builds'] });
    await report({ status: 'failure', runId: 555, attempt: 1 });
    await settledJobs(1);
    // The second attempt's edit is held, the third attempt's report queued behind it, then
    // the held edit answered 500: the third is sent, and the second's retry comes after it.
    discord.service.hold().queue({ status: 500, body: { message: 'try again', code: 0 } });
    await report({ status: 'failure', runId: 555, attempt: 2 });
    await discord.service.waitFor(2);
    await report({ status: 'success', runId: 555, attempt: 3 });
    discord.service.release();
    const jobs = await settledJobs(3);
    expect(jobs.map((job) => job.status)).toEqual(['delivered', 'delivered', 'delivered']);
    // The failed edit was tried again (second attempt): not sent, a newer state was.
    expect(jobs[1]?.attempts).toBe(2);
    expect(discord.service.requests.map((r) => [r.method, r.replied])).toEqual([
      ['POST', 200],
      ['PATCH', 500],
      ['PATCH', 200],
    ]);
    const [message] = discord.messages();
    expect(discord.messages()).toHaveLength(1);
    expect(embedOf(message?.body).title).toBe('✅ Passed · test project · CI · test');
    expect(runField(message?.body)).toBe(
      '[#77 (attempt 3)](https://github.com/acme/web/actions/runs/555)',
    );
  });

  it("the CI's build id names the run too; a message deleted in Discord is posted anew", async () => {
    await channel('discord', DISCORD_URL, { notify: ['builds'] });
    await report({ status: 'failure', buildId: 'pipeline-9' });
    await settledJobs(1);
    const [first] = discord.messages();
    discord.deleteMessage(first?.id ?? '');

    await report({ status: 'success', buildId: 'pipeline-9' });
    expect(await settledJobs(2)).toEqual([delivered(1), delivered(1)]);
    // The edit found no message (404 Unknown Message): the run got a new one, remembered...
    expect(discord.service.requests.map((r) => [r.method, r.replied])).toEqual([
      ['POST', 200],
      ['PATCH', 404],
      ['POST', 200],
    ]);
    const [second] = discord.messages();
    expect(second?.id).not.toBe(first?.id);

    // ...so the run's next report edits that one.
    await report({ status: 'failure', buildId: 'pipeline-9' });
    await settledJobs(3);
    expect(discord.service.requests.at(-1)).toMatchObject({
      method: 'PATCH',
      path: `${DISCORD_PATH}/messages/${second?.id}`,
      replied: 200,
    });
    expect(discord.messages()).toHaveLength(1);
    expect(embedOf(discord.messages()[0]?.body).title).toBe('❌ Failed · test project · CI · test');
    expect(discord.limited()).toBe(0);
  });

  it('reports without a run id are a message each', async () => {
    await channel('discord', DISCORD_URL, { notify: ['builds'] });
    await report({ status: 'failure' });
    await report({ status: 'success' });
    await settledJobs(2);
    expect(discord.service.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(discord.messages()).toHaveLength(2);
  });

  it("a run's queued reports are coalesced into the latest: one edit, never a 429", async () => {
    await channel('discord', DISCORD_URL, { notify: ['builds'] });
    // The first report's message is in flight (Discord holds its answer) while four more of the
    // same run are queued behind it in the channel's lane.
    discord.service.hold();
    await report({ status: 'failure', runId: 900, attempt: 1 });
    await discord.service.waitFor(1);
    for (let attempt = 2; attempt <= 5; attempt++) {
      await report({ status: attempt % 2 ? 'failure' : 'success', runId: 900, attempt });
    }
    // Claimed by the worker (it looks as soon as each ingest commits).
    await new Promise((resolve) => setTimeout(resolve, 500));
    discord.service.release();
    const jobs = await settledJobs(5);

    // Attempts 2 to 4 were never sent (their state is in attempt 5's), all are done.
    expect(jobs).toEqual([delivered(1), delivered(0), delivered(0), delivered(0), delivered(1)]);
    expect(discord.service.requests.map((r) => r.method)).toEqual(['POST', 'PATCH']);
    const [message] = discord.messages();
    expect(message?.edits).toBe(1);
    expect(embedOf(message?.body).description).toBe('failure (attempt 5)');
    expect(discord.limited()).toBe(0);
  });
});

describe('platforms that cannot edit', () => {
  it('Slack incoming webhooks: each report of a run is a new message in the channel', async () => {
    await channel('slack', SLACK_URL, { notify: ['builds'] });
    await report({ status: 'failure', runId: 555, attempt: 1 });
    await settledJobs(1);
    await report({ status: 'success', runId: 555, attempt: 2 });
    await settledJobs(2);
    expect(slack.accepted().map((r) => (r.body as { text: string }).text)).toEqual([
      '❌ Failed · test project · CI · test',
      '✅ Passed · test project · CI · test',
    ]);
    expect(slack.limited()).toBe(0);
  });

  it("generic webhooks: each report of a run under its first message's webhook-id, numbered", async () => {
    await channel('webhook', `http://127.0.0.1:${receiver.port}/ci-hook`, { notify: ['builds'] });
    await report({ status: 'failure', runId: 555, attempt: 1 });
    await settledJobs(1);
    await report({ status: 'success', runId: 555, attempt: 2 });
    await settledJobs(2);
    type Run = { key: string; attempt: number; sequence: number; update: boolean };
    const bodies = receiver.requests.map((r) => r.body as { data: { status: string; run: Run } });
    expect(bodies.map((b) => [b.data.status, b.data.run.attempt, b.data.run.update])).toEqual([
      ['failure', 1, false],
      ['success', 2, true],
    ]);
    // Numbered in the order of the reports, so the receiver keeps the newer.
    expect(bodies[0]?.data.run.sequence).toBeGreaterThan(0);
    expect(bodies[1]?.data.run.sequence).toBeGreaterThan(bodies[0]?.data.run.sequence as number);
    expect(bodies[0]?.data.run.key).toBe(bodies[1]?.data.run.key);
    // One record for the receiver to upsert: the run's first message's id on both
    // (test/server/channel-run-identity.test.ts verifies them as a receiver does).
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(ids[0]).toMatch(/^msg_/);
    expect(ids[1]).toBe(ids[0]);
  });
});

describe('the run messages a channel remembers', () => {
  it('go with the channel when it is deleted', async () => {
    const made = await channel('discord', DISCORD_URL, { notify: ['builds'] });
    await report({ status: 'failure', runId: 555 });
    await settledJobs(1);
    const rows = () =>
      selectRows(server.database, 'SELECT run_key, message_id FROM channel_messages');
    expect(await rows()).toEqual([
      {
        run_key: JSON.stringify(['acme/web', '555', 'build', 'CI · test']),
        message_id: discord.messages()[0]?.id,
      },
    ]);
    const res = await server.call('POST', Paths.deleteChannel, {
      key: me.apiKey,
      body: { channelId: made.id },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await rows()).toEqual([]);
  });
});
