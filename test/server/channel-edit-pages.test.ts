import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { selectRows } from '../helpers/database.js';
import { type FakePlatform, fakeSlack } from '../helpers/fake-platforms.js';
import { FormClient } from '../helpers/form-client.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Editing a channel on the Channels page (/dashboard/projects/<id>/channels/<channel>/edit): its
 * name, rules and digest shown as stored, its URL write-only (never shown, blank keeps it, a new
 * one replaces it), a refusal beside its field changing nothing, another account's a 404.
 */

const SLACK_PATH = '/services/T0001AAAA/B0002BBBB/sLaCkSeCrEt0123456789';
const SLACK_URL = `https://hooks.slack.com${SLACK_PATH}`;
const NEW_PATH = '/services/T0001AAAA/B0003CCCC/nEwSeCrEt9876543210';

let server: TestServer;
let me: TestAccount;
let browser: FormClient;
let slack: FakePlatform;

beforeEach(async () => {
  slack = fakeSlack([SLACK_PATH, NEW_PATH]);
  await slack.service.start();
  server = await startTestServer({
    SLACK_WEBHOOK_ORIGIN: slack.service.origin,
    SECRETS_KEY: 'channel-edit-test-key-0123456789abcdefghij',
  });
  me = await server.account();
  browser = new FormClient(server);
  await browser.signIn(me.apiKey);
});
afterEach(async () => {
  await server?.close();
  await slack?.service.stop();
});

const list = () => `/dashboard/projects/${encodeURIComponent(me.projectId)}/channels`;
const editOf = (id: string) => `${list()}/${id}/edit`;
const errorOf = (html: string, id: string) =>
  new RegExp(`<p class="error" id="${id}-error">([^<]*)</p>`).exec(html)?.[1];
const stored = () =>
  selectRows(server.database, 'SELECT name, hint, target, rules, updated_at FROM channels');

async function slackChannel(): Promise<string> {
  const res = await server.call('POST', Paths.createChannel, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      kind: 'slack',
      name: 'CI in #builds',
      url: SLACK_URL,
      rules: {
        notify: ['failures', 'alerts'],
        branches: ['main', 'release/*'],
        mention: '<!here>',
        digest: { every: 'week', at: '08:15' },
      },
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

describe('editing a channel on its page', () => {
  it('shows the rules as stored and never the URL; saves name, rules and digest, the URL kept when blank', async () => {
    const id = await slackChannel();
    const listed = await browser.get(list());
    expect(listed.body).toContain(`href="${editOf(id)}"`);
    const form = await browser.get(editOf(id));
    expect(form.statusCode).toBe(200);
    expect(form.body).not.toContain('sLaCkSeCrEt');
    expect(form.body).toContain('hooks.slack.com/services/T0001AAAA/B0002BBBB/…');
    // The URL field is empty: no value at all.
    const urlInput = /<input[^>]*id="url"[^>]*>/.exec(form.body)?.[0];
    expect(urlInput).toBeDefined();
    expect(urlInput).not.toMatch(/value="[^"]/);
    expect(form.body).toContain('value="main, release/*"');
    expect(form.body).toContain('id="mention" name="mention" type="text" value="&lt;!here>"');
    expect(form.body).toContain('value="08:15"');
    expect(form.body).toMatch(/<option value="week" selected/);
    for (const choice of ['failures', 'alerts']) {
      expect(form.body).toMatch(new RegExp(`value="${choice}" checked`));
    }
    expect(form.body).not.toMatch(/value="builds" checked/);
    const [before] = await stored();

    const saved = await browser.post(editOf(id), {
      name: 'CI on main',
      url: '',
      'notify[]': ['builds', 'flaky'],
      branches: 'main',
      mention: '',
      digest: 'day',
      digestAt: '07:00',
    });
    expect({ status: saved.statusCode, location: saved.headers.location }).toEqual({
      status: 303,
      location: `${list()}?done=channel-saved`,
    });
    const [after] = await stored();
    // The sealed URL is the same bytes: blank kept it.
    expect(after?.target).toBe(before?.target);
    expect(after?.hint).toBe(before?.hint);
    const [channel] = (
      await server.call('GET', `${Paths.getChannels}?projectId=${me.projectId}`, {
        key: me.apiKey,
      })
    ).json().channels;
    expect(channel).toMatchObject({
      name: 'CI on main',
      rules: {
        notify: ['builds', 'flaky'],
        branches: ['main'],
        digest: { every: 'day', at: '07:00' },
      },
    });
    expect(channel.rules.mention).toBeUndefined();
    const page = await browser.get(`${list()}?done=channel-saved`);
    expect(page.body).toContain('The channel is saved');

    // A new URL replaces it: the test message goes there.
    const moved = await browser.post(editOf(id), {
      name: 'CI on main',
      url: `https://hooks.slack.com${NEW_PATH}`,
      'notify[]': ['builds'],
    });
    expect(moved.statusCode, moved.body).toBe(303);
    const [relocated] = await stored();
    expect(relocated?.hint).toBe('hooks.slack.com/services/T0001AAAA/B0003CCCC/…');
    expect(relocated?.target).not.toContain('nEwSeCrEt');
    await browser.get(list());
    const tested = await browser.post(`${list()}/test`, { channelId: id });
    expect(tested.body).toContain('A sample message went to CI on main.');
    expect(slack.accepted().map((r) => r.path)).toEqual([NEW_PATH]);
  });

  it('shows each refusal beside its field, keeps what was typed, and changes nothing', async () => {
    const id = await slackChannel();
    await browser.get(editOf(id));
    const before = await stored();
    const cases: [Record<string, string | string[]>, string, string][] = [
      [
        {
          name: 'x',
          url: 'https://hooks.slack.com.evil.test/services/T1/B1/x',
          'notify[]': ['builds'],
        },
        'url',
        'This is not a webhook URL of that kind (HTTPS, on its own hosts).',
      ],
      [
        { name: 'x', 'notify[]': ['builds'], mention: '@everyone' },
        'mention',
        'A Discord <@&role>',
      ],
      [{ name: 'x', 'notify[]': ['builds'], digest: 'day', digestAt: '25:00' }, 'digest', 'HH:MM'],
      [{ name: '', 'notify[]': ['builds'] }, 'name', ''],
    ];
    for (const [fields, field, text] of cases) {
      const res = await browser.post(editOf(id), fields);
      expect(res.statusCode, field).toBe(400);
      const error = errorOf(res.body, field);
      expect(error, field).toBeDefined();
      const unescaped = error?.replaceAll('&lt;', '<').replaceAll('&gt;', '>');
      expect(unescaped?.replaceAll('&amp;', '&')).toContain(text);
      expect(res.body).toContain(`aria-describedby="${field === 'digest' ? 'digest' : field}`);
    }
    const none = await browser.post(editOf(id), { name: 'x' });
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('Tick at least one, or choose a digest.');
    // What was typed is shown again, never the stored URL.
    const typed = await browser.post(editOf(id), {
      name: 'typed name',
      'notify[]': ['builds'],
      mention: 'nobody',
    });
    expect(typed.body).toContain('value="typed name"');
    expect(typed.body).not.toContain('sLaCkSeCrEt');
    expect(await stored()).toEqual(before);
  });

  it("another account's channel, or one of another project, is the 404 page", async () => {
    const id = await slackChannel();
    const other = await server.account();
    const theirs = `/dashboard/projects/${encodeURIComponent(other.projectId)}/channels/${id}/edit`;
    expect((await browser.get(theirs)).statusCode).toBe(404);
    expect((await browser.get(`${list()}/no-such-channel/edit`)).statusCode).toBe(404);
    const stranger = new FormClient(server);
    await stranger.signIn(other.apiKey);
    expect((await stranger.get(editOf(id))).statusCode).toBe(404);
    await stranger.get(`/dashboard/projects/${encodeURIComponent(other.projectId)}/channels`);
    expect(
      (await stranger.post(editOf(id), { name: 'mine', 'notify[]': ['builds'] })).statusCode,
    ).toBe(404);
    const [channel] = await stored();
    expect(channel?.name).toBe('CI in #builds');
  });
});

describe('Slack app channels on the page', () => {
  it('adds one with its bot token, never shown again; the edit form keeps it when blank, replaces it when given', async () => {
    await browser.get(list());
    const token = 'xoxb-1111111111-2222222222-pAgEtOkEn0123456789';
    const added = await browser.post(list(), {
      kind: 'slack-app',
      name: 'CI app',
      url: 'https://acme.slack.com/archives/C0123ABCDEF',
      token,
      'notify[]': ['builds'],
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.body).not.toContain('pAgEtOkEn');
    const [channel] = (
      await server.call('GET', `${Paths.getChannels}?projectId=${me.projectId}`, {
        key: me.apiKey,
      })
    ).json().channels;
    expect(channel).toMatchObject({
      kind: 'slack-app',
      target: 'acme.slack.com/archives/C0123ABCDEF',
    });
    const form = await browser.get(editOf(channel.id));
    expect(form.body).not.toContain('pAgEtOkEn');
    expect(/<input[^>]*id="token"[^>]*>/.exec(form.body)?.[0]).not.toMatch(/value="[^"]/);
    const [before] = await selectRows(server.database, 'SELECT secret FROM channels');

    // Blank keeps it; a token that is no bot token is refused beside its field.
    expect(
      (await browser.post(editOf(channel.id), { name: 'CI app', 'notify[]': ['builds'] }))
        .statusCode,
    ).toBe(303);
    expect(await selectRows(server.database, 'SELECT secret FROM channels')).toEqual([before]);
    await browser.get(editOf(channel.id));
    const bad = await browser.post(editOf(channel.id), {
      name: 'CI app',
      token: 'xoxp-user-token-0123456789',
      'notify[]': ['builds'],
    });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad.body, 'token')).toBeDefined();
    expect(bad.body).not.toContain('xoxp-user-token');
    expect(await selectRows(server.database, 'SELECT secret FROM channels')).toEqual([before]);
    const replaced = await browser.post(editOf(channel.id), {
      name: 'CI app',
      token: 'xoxb-1111111111-2222222222-nEwPaGeToKeN0123456',
      'notify[]': ['builds'],
    });
    expect(replaced.statusCode).toBe(303);
    const [after] = await selectRows(server.database, 'SELECT secret FROM channels');
    expect(after?.secret).not.toEqual(before?.secret);
    expect(String(after?.secret)).not.toContain('nEwPaGeToKeN');
  });

  it("a Discord channel's thread id: added on the Add form, shown and changed on its edit form, refused beside its field when no snowflake, blank removes it", async () => {
    const THREAD = '998877665544332211';
    const discordUrl =
      'https://discord.com/api/webhooks/112233445566778899/dIsCoRdToKeN_0123456789-abcdefghijklmnopqrstuvwxyz';
    await browser.get(list());
    // On the Add form, a thread for a Slack channel is refused beside its field.
    const onSlack = await browser.post(list(), {
      kind: 'slack',
      name: 'Slack',
      url: SLACK_URL,
      thread_id: THREAD,
      'notify[]': ['builds'],
    });
    expect(onSlack.statusCode).toBe(400);
    expect(errorOf(onSlack.body, 'thread_id')).toBeDefined();
    const added = await browser.post(list(), {
      kind: 'discord',
      name: 'Discord thread',
      url: discordUrl,
      thread_id: THREAD,
      'notify[]': ['builds'],
    });
    expect(added.statusCode).toBe(201);
    const threads = () => selectRows(server.database, 'SELECT kind, thread_id FROM channels');
    expect(await threads()).toEqual([{ kind: 'discord', thread_id: THREAD }]);
    const [channel] = (
      await server.call('GET', `${Paths.getChannels}?projectId=${me.projectId}`, {
        key: me.apiKey,
      })
    ).json().channels;
    const form = await browser.get(editOf(channel.id));
    expect(form.body).toContain(`id="thread_id" name="thread_id" type="text" value="${THREAD}"`);

    const saveThread = async (thread_id: string) => {
      await browser.get(editOf(channel.id));
      return browser.post(editOf(channel.id), {
        name: 'Discord thread',
        thread_id,
        'notify[]': ['builds'],
      });
    };
    const bad = await saveThread('12ab');
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad.body, 'thread_id')).toBe(
      'A Discord thread id (17 to 20 digits), for a Discord channel only.',
    );
    expect(await threads()).toEqual([{ kind: 'discord', thread_id: THREAD }]);
    const other = '112233445566778800';
    expect((await saveThread(other)).statusCode).toBe(303);
    expect(await threads()).toEqual([{ kind: 'discord', thread_id: other }]);
    expect((await saveThread('')).statusCode).toBe(303);
    expect(await threads()).toEqual([{ kind: 'discord', thread_id: null }]);
  });
});
