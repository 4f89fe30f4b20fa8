import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { executeSql, selectRows } from '../helpers/database.js';
import { type FakeSlackApi, type FakeSlackApp, fakeSlackApi } from '../helpers/fake-slack-api.js';
import { FormClient } from '../helpers/form-client.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * "Add to Slack" (issue 30, docs/notifications.md#add-to-slack): the owner starts the
 * installation from the Channels page, the browser goes to Slack's authorize page (a fake that
 * enforces Slack's OAuth v2 rules: client id and secret, single-use short-lived codes, the same
 * redirect_uri, form-encoded bodies) and back to our callback, over real HTTP; the channel is then
 * a `slack-app` channel whose bot token is sealed, and its messages go through chat.postMessage
 * with that token. A state is single-use, short-lived and of its own session; every refusal
 * (denied, forged, reused, expired, another session's, Slack's `ok: false`) changes nothing.
 */

const APP: FakeSlackApp = {
  clientId: '1111111111.2222222222',
  clientSecret: 'cLiEnTsEcReT0123456789abcdef',
  team: { id: 'T0ACME0001', name: 'Acme' },
  workspace: 'acme',
  channel: { id: 'C0BUILDS01', name: '#builds' },
};

let server: TestServer;
let me: TestAccount;
let slack: FakeSlackApi;
let origin: string;

async function start(env: Record<string, string> = {}) {
  slack = fakeSlackApi([], [APP.channel.id], APP);
  await slack.service.start();
  server = await startTestServer({
    SLACK_API_ORIGIN: slack.service.origin,
    SLACK_CLIENT_ID: APP.clientId,
    SLACK_CLIENT_SECRET: APP.clientSecret,
    OUTBOX_RETRY_BASE_MS: '50',
    OUTBOUND_TIMEOUT_MS: '2000',
    SECRETS_KEY: 'channel-slack-install-test-key-0123456789',
    ...env,
  });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  me = await server.account();
}
afterEach(async () => {
  await server?.close();
  await slack?.service.stop();
});

/** A browser over real HTTP: its session's cookie, redirects seen one at a time. */
class Browser {
  csrf = '';
  constructor(private readonly cookie: string) {}

  static async signedIn(apiKey: string): Promise<Browser> {
    const form = new FormClient(server);
    await form.signIn(apiKey);
    return new Browser([...form.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
  }

  async get(url: string) {
    const res = await fetch(url.startsWith('http') ? url : `${origin}${url}`, {
      redirect: 'manual',
      headers: { cookie: this.cookie, accept: 'text/html' },
    });
    const body = await res.text();
    this.csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? this.csrf;
    return { status: res.status, location: res.headers.get('location'), body, res };
  }

  async post(path: string, fields: Record<string, string> = {}) {
    const res = await fetch(`${origin}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: this.cookie,
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: this.csrf, ...fields }).toString(),
    });
    return { status: res.status, location: res.headers.get('location'), body: await res.text() };
  }

  /** From the Channels page's "Add to Slack" to Slack's authorize page: its address. */
  async startInstall(): Promise<URL> {
    await this.get(channelsPage());
    const started = await this.post(`${channelsPage()}/slack`);
    expect(started.status, started.body).toBe(303);
    return new URL(started.location as string);
  }

  /** Through the fake's authorize page (the person decides there): where Slack sends us back. */
  async throughSlack(authorize: URL): Promise<URL> {
    const answer = await fetch(authorize, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    return new URL(answer.headers.get('location') as string);
  }
}

const channelsPage = () => `/dashboard/projects/${encodeURIComponent(me.projectId)}/channels`;
const callback = () => `${origin}/dashboard/slack/callback`;
const channelRows = () =>
  selectRows(server.database, 'SELECT id, kind, name, hint, target, secret FROM channels');
const exchanges = () => slack.service.requests.filter((r) => r.path === '/api/oauth.v2.access');
const pending = async () =>
  (await selectRows(server.database, 'SELECT count(*) AS n FROM slack_installs'))[0]?.n;

async function settled(count: number) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const rows = await selectRows(
      server.database,
      "SELECT status, last_error FROM outbox WHERE kind = 'channel-message' ORDER BY id",
    );
    if (rows.length >= count && rows.every((row) => row.status !== 'pending')) return rows;
    if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('Add to Slack', () => {
  beforeEach(() => start());

  it('installs the app from the Channels page over real HTTP: a sealed slack-app channel that posts with its token', async () => {
    const browser = await Browser.signedIn(me.apiKey);
    const page = await browser.get(channelsPage());
    expect(page.body).toContain('Add to Slack');
    // The form's redirect goes to Slack: the page's form-action names Slack's origin.
    expect(page.res.headers.get('content-security-policy')).toContain(
      `form-action 'self' ${slack.service.origin}`,
    );

    const authorize = await browser.startInstall();
    expect(authorize.origin + authorize.pathname).toBe(
      `${slack.service.origin}/oauth/v2/authorize`,
    );
    expect(authorize.searchParams.get('client_id')).toBe(APP.clientId);
    expect(authorize.searchParams.get('scope')?.split(',')).toEqual([
      'chat:write',
      'chat:write.public',
      'incoming-webhook',
    ]);
    expect(authorize.searchParams.get('redirect_uri')).toBe(callback());
    const state = authorize.searchParams.get('state') as string;
    expect(state.length).toBeGreaterThanOrEqual(32);
    // The state is stored as its hash only.
    const [install] = await selectRows(server.database, 'SELECT * FROM slack_installs');
    expect(JSON.stringify(install)).not.toContain(state);

    const back = await browser.throughSlack(authorize);
    expect(back.origin + back.pathname).toBe(callback());
    const done = await browser.get(back.href);
    expect(done.status, done.body).toBe(303);

    const [row] = await channelRows();
    expect(row).toMatchObject({
      kind: 'slack-app',
      name: '#builds · Acme',
      hint: `acme.slack.com/archives/${APP.channel.id}`,
    });
    expect(done.location).toBe(
      `${channelsPage()}/${encodeURIComponent(String(row?.id))}/edit?done=slack-installed`,
    );
    const edit = await browser.get(done.location as string);
    expect(edit.body).toContain('Slack is connected');

    // The code was exchanged as Slack wants it, and the token it gave is sealed at rest.
    const [exchange] = exchanges();
    expect(exchange?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(exchange?.body).toMatchObject({ client_id: APP.clientId, redirect_uri: callback() });
    const [token] = slack.issuedTokens();
    expect(token).toMatch(/^xoxb-/);
    const secretPart = String(token).slice(-16);
    expect(String(row?.secret)).not.toContain(secretPart);
    expect(String(row?.target)).not.toContain(APP.channel.id);
    expect(JSON.stringify(await channelRows())).not.toContain(secretPart);
    expect(await pending()).toBe(0);

    // A build's message goes through chat.postMessage, with that token, to the channel picked.
    const res = await server.call('POST', Paths.ingestEvents, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        eventType: 'build',
        payload: { status: 'failure', ci: { branch: 'main', build_number: '7' } },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await settled(1)).toEqual([{ status: 'delivered', last_error: null }]);
    const post = slack.service.requests.find((r) => r.path === '/api/chat.postMessage');
    expect(post?.headers.authorization).toBe(`Bearer ${token}`);
    expect(post?.body).toMatchObject({ channel: APP.channel.id });
    expect(slack.messages()).toHaveLength(1);

    // The same answer from Slack again: the state is spent, nothing more is made.
    const replay = await browser.get(back.href);
    expect(replay.status).toBe(400);
    expect(replay.body).toContain('This Slack installation is not valid');
    expect(await channelRows()).toHaveLength(1);
    expect(exchanges()).toHaveLength(1);
  });

  it('refuses a forged state, an expired one and another session’s, changing nothing', async () => {
    const browser = await Browser.signedIn(me.apiKey);
    const authorize = await browser.startInstall();
    const back = await browser.throughSlack(authorize);

    // A state nobody started, with a good code.
    const forged = new URL(back);
    forged.searchParams.set('state', 'A'.repeat(43));
    const refusedForged = await browser.get(forged.href);
    expect(refusedForged.status).toBe(400);
    expect(refusedForged.body).toContain('This Slack installation is not valid');
    expect(refusedForged.body).toContain('Nothing was added.');

    // The same account signed in elsewhere: another session, whose try does not spend the state.
    const other = await Browser.signedIn(me.apiKey);
    expect((await other.get(back.href)).status).toBe(400);
    // Another account altogether.
    const stranger = await Browser.signedIn((await server.account()).apiKey);
    expect((await stranger.get(back.href)).status).toBe(400);
    expect(await channelRows()).toHaveLength(0);
    expect(exchanges()).toHaveLength(0);

    // Its own session may finish it.
    expect((await browser.get(back.href)).status).toBe(303);
    expect(await channelRows()).toHaveLength(1);

    // Older than its 10 minutes: refused, and Slack is not asked.
    const late = await browser.throughSlack(await browser.startInstall());
    await executeSql(server.database, 'UPDATE slack_installs SET expires_at = ?', Date.now() - 1);
    const expired = await browser.get(late.href);
    expect(expired.status).toBe(400);
    expect(await channelRows()).toHaveLength(1);
    expect(exchanges()).toHaveLength(1);
  });

  it('says the installation was cancelled when the person denied it in Slack', async () => {
    const browser = await Browser.signedIn(me.apiKey);
    slack.decide('deny');
    const back = await browser.throughSlack(await browser.startInstall());
    expect(back.searchParams.get('error')).toBe('access_denied');
    const denied = await browser.get(back.href);
    expect(denied.status).toBe(400);
    expect(denied.body).toContain('The Slack installation was cancelled');
    expect(await channelRows()).toHaveLength(0);
    expect(exchanges()).toHaveLength(0);
    // The state is spent: a code sent with it afterwards finds nothing.
    const later = new URL(back);
    later.searchParams.delete('error');
    later.searchParams.set('code', slack.issueCode(callback()));
    expect((await browser.get(later.href)).status).toBe(400);
    expect(exchanges()).toHaveLength(0);
  });

  it("shows Slack's ok:false (a spent code, another redirect_uri's code) or its failure, and stores nothing", async () => {
    const browser = await Browser.signedIn(me.apiKey);
    const first = await browser.throughSlack(await browser.startInstall());
    expect((await browser.get(first.href)).status).toBe(303);

    // A new installation answered with the first one's code: Slack's codes are good once.
    const second = await browser.throughSlack(await browser.startInstall());
    second.searchParams.set('code', first.searchParams.get('code') as string);
    const spent = await browser.get(second.href);
    expect(spent.status).toBe(502);
    expect(spent.body).toContain('Slack answered invalid_code');
    expect(spent.body).not.toContain(APP.clientSecret);

    // A code issued for another redirect_uri.
    const third = await browser.throughSlack(await browser.startInstall());
    third.searchParams.set('code', slack.issueCode('https://elsewhere.example/callback'));
    const moved = await browser.get(third.href);
    expect(moved.status).toBe(502);
    expect(moved.body).toContain('Slack answered bad_redirect_uri');

    // Slack itself failing: said as such, nothing stored.
    const fourth = await browser.throughSlack(await browser.startInstall());
    slack.service.queue({ status: 500, text: 'upstream trouble' });
    const down = await browser.get(fourth.href);
    expect(down.status).toBe(502);
    expect(down.body).toContain('Slack answered HTTP 500');

    expect(await channelRows()).toHaveLength(1);
    expect(exchanges().map((r) => r.replied)).toEqual([200, 200, 200, 500]);
  });
});

describe('Add to Slack under a base path', () => {
  beforeEach(() => start({ BASE_PATH: '/ci-stats', PUBLIC_URL: 'https://ci.example.com' }));

  it("sends PUBLIC_URL's callback, the base path included, as the redirect_uri", async () => {
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const page = `/ci-stats${channelsPage()}`;
    await browser.get(page);
    const started = await browser.post(`${page}/slack`);
    expect(started.statusCode, started.body).toBe(303);
    const authorize = new URL(String(started.headers.location));
    expect(authorize.searchParams.get('redirect_uri')).toBe(
      'https://ci.example.com/ci-stats/dashboard/slack/callback',
    );
  });
});

describe('without a Slack app', () => {
  it('shows no "Add to Slack", and the callback says Slack is not set up', async () => {
    server = await startTestServer({});
    me = await server.account();
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const page = await browser.get(channelsPage());
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('Add to Slack');
    expect(page.headers['content-security-policy']).toMatch(/form-action 'self'(;|$)/);
    const res = await browser.get('/dashboard/slack/callback?state=abc&code=def');
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('Slack is not set up here');
    const start = await browser.post(`${channelsPage()}/slack`);
    expect(start.statusCode).toBe(404);
    expect(await channelRows()).toHaveLength(0);
  });
});
