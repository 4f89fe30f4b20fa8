import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { selectRows } from '../helpers/database.js';
import { type FakeSlackApi, fakeSlackApi } from '../helpers/fake-slack-api.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Slack app channels (issue 30's "one message per build, updated in place", on Slack): a bot
 * token posts a run's first report with chat.postMessage and edits it with chat.update (channel
 * and ts), through a fake Slack Web API that enforces Slack's rules: Bearer auth, `ok: false`
 * refusals in HTTP 200 answers, message_not_found, 429 with Retry-After. The token is sealed
 * like every channel secret, and never shown again.
 */

const TOKEN = 'xoxb-1111111111-2222222222-bOtToKeNsEcReT0123456789';
const CHANNEL = 'C0123ABCDEF';
const LINK = `https://acme.slack.com/archives/${CHANNEL}`;

let server: TestServer;
let me: TestAccount;
let slack: FakeSlackApi;

beforeEach(async () => {
  slack = fakeSlackApi([TOKEN], [CHANNEL]);
  await slack.service.start();
  server = await startTestServer({
    SLACK_API_ORIGIN: slack.service.origin,
    OUTBOX_RETRY_BASE_MS: '50',
    OUTBOUND_TIMEOUT_MS: '2000',
    SECRETS_KEY: 'channel-slack-app-test-key-0123456789abcdef',
  });
  await server.app.ready();
  me = await server.account();
});
afterEach(async () => {
  await server?.close();
  await slack?.service.stop();
});

async function create(body: Record<string, unknown>) {
  return server.call('POST', Paths.createChannel, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      name: 'CI in #builds',
      rules: { notify: ['builds'] },
      ...body,
    },
  });
}

async function report(status: string, runId: number, attempt: number) {
  const res = await server.call('POST', Paths.ingestEvents, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      eventType: 'build',
      payload: {
        status,
        ci: {
          provider: 'github',
          repository: 'acme/web',
          branch: 'main',
          build_number: String(runId),
          job: 'test',
        },
        github: { workflow: 'CI', run_id: runId, run_attempt: attempt },
      },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

const jobs = () =>
  selectRows(
    server.database,
    "SELECT status, attempts, last_error FROM outbox WHERE kind = 'channel-message' ORDER BY id",
  );

async function settled(count: number) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const rows = await jobs();
    if (rows.length >= count && rows.every((row) => row.status !== 'pending')) return rows;
    if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const headerOf = (message: { blocks: Record<string, unknown>[] } | undefined) =>
  (message?.blocks[0]?.text as { text: string } | undefined)?.text;

describe('Slack app channels', () => {
  it('takes the channel link and a bot token, sealed, never shown; refuses a token elsewhere', async () => {
    const made = await create({ kind: 'slack-app', url: LINK, token: TOKEN });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json().target).toBe(`acme.slack.com/archives/${CHANNEL}`);
    expect(made.body).not.toContain('bOtToKeN');
    const list = await server.call('GET', `${Paths.getChannels}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(list.body).not.toContain('bOtToKeN');
    const [row] = await selectRows(server.database, 'SELECT target, secret FROM channels');
    expect(String(row?.secret)).not.toContain('bOtToKeN');
    expect(String(row?.target)).not.toContain(CHANNEL);

    for (const [body, field] of [
      [{ kind: 'slack-app', url: LINK }, 'token'],
      [{ kind: 'slack-app', url: LINK, token: 'xoxp-1111111111-user-token' }, 'token'],
      [{ kind: 'webhook', url: 'https://hooks.example.org/ci', token: TOKEN }, 'token'],
    ] as const) {
      const refused = await create(body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(refused.json().issues)).toContain(field);
    }
    for (const url of [
      'https://acme.slack.com.evil.test/archives/C0123ABCDEF',
      'http://acme.slack.com/archives/C0123ABCDEF',
      'https://acme.slack.com/messages/C0123ABCDEF',
    ]) {
      const refused = await create({ kind: 'slack-app', url, token: TOKEN });
      expect(refused.statusCode, url).toBe(400);
      expect(refused.json().error).toContain('slack-app');
    }
    // A token is for Slack app channels only, on update too; nothing changes.
    const other = await create({ kind: 'webhook', url: 'https://hooks.example.org/ci' });
    const refused = await server.call('POST', Paths.updateChannel, {
      key: me.apiKey,
      body: { channelId: other.json().id, token: TOKEN },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe('token is for slack-app channels only.');
    expect(await selectRows(server.database, 'SELECT count(*) AS n FROM channels')).toEqual([
      { n: 2 },
    ]);
  });

  it("posts a run's first report, edits it with chat.update for the re-run, and posts anew when it is gone", async () => {
    const made = await create({ kind: 'slack-app', url: LINK, token: TOKEN });
    expect(made.statusCode).toBe(201);
    await report('failure', 555, 1);
    expect(await settled(1)).toEqual([{ status: 'delivered', attempts: 1, last_error: null }]);
    await report('success', 555, 2);
    await settled(2);

    const [post, update] = slack.service.requests;
    expect(post).toMatchObject({ method: 'POST', path: '/api/chat.postMessage', replied: 200 });
    expect(post?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(update).toMatchObject({ method: 'POST', path: '/api/chat.update', replied: 200 });
    const [message] = slack.messages();
    expect(update?.body).toMatchObject({ channel: CHANNEL, ts: message?.ts });
    // One message, edited once, telling the latest state.
    expect(slack.messages()).toHaveLength(1);
    expect(message?.edits).toBe(1);
    expect(headerOf(message)).toContain('Passed');

    // Deleted in Slack: the next report's edit answers message_not_found; it is posted anew,
    // after its own pacing slot, and that message is the one edited from then on.
    slack.deleteMessage(message?.ts as string);
    await report('failure', 555, 3);
    await settled(3);
    await report('success', 555, 4);
    await settled(4);
    const paths = slack.service.requests.map((r) => r.path.replace('/api/', ''));
    expect(paths).toEqual([
      'chat.postMessage',
      'chat.update',
      'chat.update',
      'chat.postMessage',
      'chat.update',
    ]);
    const [again] = slack.messages();
    expect(slack.messages()).toHaveLength(1);
    expect(again?.edits).toBe(1);
    expect(headerOf(again)).toContain('Passed');
    expect(slack.limited()).toBe(0);
    expect((await jobs()).every((job) => job.status === 'delivered')).toBe(true);
  });

  it("Slack's refusals in 200 answers are final, its 429 waits Retry-After; the token never in an error", async () => {
    await create({ kind: 'slack-app', url: LINK, token: TOKEN });
    // A 429 with Retry-After: 1, once: the message waits and goes.
    slack.service.queue({
      status: 429,
      body: { ok: false, error: 'ratelimited' },
      headers: { 'retry-after': '1' },
    });
    const started = Date.now();
    await report('failure', 1, 1);
    const [first] = await settled(1);
    expect(first).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(slack.service.requests[1]?.at ?? 0).toBeGreaterThanOrEqual(started + 1_000);

    // A revoked token: `ok: false, invalid_auth` in a 200 answer fails the job for good.
    slack.revoke(TOKEN);
    await report('failure', 2, 1);
    const rows = await settled(2);
    expect(rows[1]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(String(rows[1]?.last_error)).toContain('invalid_auth');
    expect(String(rows[1]?.last_error)).not.toContain('bOtToKeN');

    // test-channel says what Slack said.
    const [channel] = (
      await server.call('GET', `${Paths.getChannels}?projectId=${me.projectId}`, { key: me.apiKey })
    ).json().channels;
    const tested = await server.call('POST', Paths.testChannel, {
      key: me.apiKey,
      body: { channelId: channel.id },
    });
    expect(tested.json()).toEqual({ delivered: false, error: 'Slack answered invalid_auth' });
  });
});
