import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { type FakePlatform, fakeSlack } from '../helpers/fake-platforms.js';
import { FormClient } from '../helpers/form-client.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * The owner's channels page (/dashboard/projects/<id>/channels): it lists, adds, tests and
 * deletes channels as the channel API does, shows a refusal next to its field (storing nothing),
 * shows a generic webhook's signing secret once, and is another account's 404.
 */

const SLACK_PATH = '/services/T0001AAAA/B0002BBBB/sLaCkSeCrEt0123456789';
const SLACK_URL = `https://hooks.slack.com${SLACK_PATH}`;

let server: TestServer;
let me: TestAccount;
let browser: FormClient;
let slack: FakePlatform;

beforeEach(async () => {
  slack = fakeSlack([SLACK_PATH]);
  await slack.service.start();
  server = await startTestServer({
    SLACK_WEBHOOK_ORIGIN: slack.service.origin,
    WEBHOOK_ALLOWED_HOSTS: 'hooks.example.org',
    SECRETS_KEY: 'channel-pages-test-key-0123456789abcdefghi',
  });
  me = await server.account();
  browser = new FormClient(server);
  await browser.signIn(me.apiKey);
});
afterEach(async () => {
  await server?.close();
  await slack?.service.stop();
});

const page = () => `/dashboard/projects/${encodeURIComponent(me.projectId)}/channels`;
const apiChannels = async () =>
  (
    await server.call('GET', `${Paths.getChannels}?projectId=${me.projectId}`, { key: me.apiKey })
  ).json().channels as { id: string; name: string; kind: string; rules: unknown }[];
const errorOf = (html: string, id: string) =>
  new RegExp(`<p class="error" id="${id}-error">([^<]*)</p>`).exec(html)?.[1];

describe('the channels page', () => {
  it('is linked from the project page and lists nothing at first', async () => {
    const project = await browser.get(`/dashboard/projects/${encodeURIComponent(me.projectId)}`);
    expect(project.body).toContain(`href="${page()}"`);
    const res = await browser.get(page());
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('No channels yet.');
  });

  it('adds a Slack channel with its rules and a digest, sends it a test, deletes it', async () => {
    await browser.get(page());
    const added = await browser.post(page(), {
      kind: 'slack',
      name: 'CI in #builds',
      url: SLACK_URL,
      'notify[]': ['failures', 'alerts'],
      branches: 'main, release/*',
      mention: '<!here>',
      digest: 'week',
      digestAt: '08:15',
    });
    expect(added.statusCode, added.body).toBe(201);
    const [channel] = await apiChannels();
    expect(channel).toMatchObject({
      name: 'CI in #builds',
      kind: 'slack',
      rules: {
        notify: ['failures', 'alerts'],
        branches: ['main', 'release/*'],
        mention: '<!here>',
        digest: { every: 'week', at: '08:15' },
      },
    });
    // The URL's secret part is never shown, on the answer or the list.
    expect(added.body).not.toContain('sLaCkSeCrEt');
    const list = await browser.get(page());
    expect(list.body).not.toContain('sLaCkSeCrEt');
    expect(list.body).toContain('hooks.slack.com/services/T0001AAAA/B0002BBBB/…');
    expect(list.body).toContain(
      'Failures, Regression alerts on main, release/*; weekly (Mondays) digest at 08:15 UTC',
    );

    const tested = await browser.post(`${page()}/test`, { channelId: channel?.id ?? '' });
    expect(tested.statusCode).toBe(200);
    expect(tested.body).toContain('A sample message went to CI in #builds.');
    expect(slack.accepted()).toHaveLength(1);

    const deleted = await browser.post(`${page()}/delete`, { channelId: channel?.id ?? '' });
    expect({ status: deleted.statusCode, location: deleted.headers.location }).toEqual({
      status: 303,
      location: `${page()}?done=channel-deleted`,
    });
    expect(await apiChannels()).toEqual([]);
  });

  it("shows a generic webhook's signing secret once", async () => {
    await browser.get(page());
    const added = await browser.post(page(), {
      kind: 'webhook',
      name: 'Our receiver',
      url: 'https://hooks.example.org/ci',
      'notify[]': ['builds'],
    });
    expect(added.statusCode, added.body).toBe(201);
    const secret = /<code class="secret">(whsec_[^<]+)<\/code>/.exec(added.body)?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const again = await browser.get(page());
    expect(again.body).not.toContain(secret);
    expect(again.body).not.toContain('whsec_');
  });

  it('shows each refusal next to its field and stores nothing', async () => {
    await browser.get(page());
    const badUrl = await browser.post(page(), {
      kind: 'slack',
      name: 'x',
      url: 'https://hooks.slack.com.evil.test/services/T1/B1/x',
      'notify[]': ['builds'],
    });
    expect(badUrl.statusCode).toBe(400);
    expect(errorOf(badUrl.body, 'url')).toContain('not a webhook URL of that kind');
    // The form keeps what was typed.
    expect(badUrl.body).toContain('value="https://hooks.slack.com.evil.test/services/T1/B1/x"');

    const nothing = await browser.post(page(), { kind: 'slack', name: 'x', url: SLACK_URL });
    expect(nothing.statusCode).toBe(400);
    expect(nothing.body).toContain('Tick at least one, or choose a digest.');

    const badTime = await browser.post(page(), {
      kind: 'slack',
      name: 'x',
      url: SLACK_URL,
      digest: 'day',
      digestAt: '25:00',
    });
    expect(badTime.statusCode).toBe(400);
    expect(errorOf(badTime.body, 'digest')).toBe('Give the digest time as HH:MM, UTC.');
    expect(await apiChannels()).toEqual([]);
  });

  it("another account's project, and its channels, are the 404 page", async () => {
    const other = await server.account();
    await server.call('POST', Paths.createChannel, {
      key: other.apiKey,
      body: {
        projectId: other.projectId,
        kind: 'slack',
        name: 'theirs',
        url: SLACK_URL,
        rules: { notify: ['builds'] },
      },
    });
    const theirs = `/dashboard/projects/${encodeURIComponent(other.projectId)}/channels`;
    expect((await browser.get(theirs)).statusCode).toBe(404);
    await browser.get(page());
    const [channel] = (
      await server.call('GET', `${Paths.getChannels}?projectId=${other.projectId}`, {
        key: other.apiKey,
      })
    ).json().channels;
    expect((await browser.post(`${theirs}/delete`, { channelId: channel.id })).statusCode).toBe(
      404,
    );
    expect((await browser.post(`${page()}/delete`, { channelId: channel.id })).statusCode).toBe(
      404,
    );
    expect((await browser.post(`${page()}/test`, { channelId: channel.id })).statusCode).toBe(404);
    expect(slack.service.requests).toHaveLength(0);
  });
});
