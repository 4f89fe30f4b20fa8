import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { describeInBrowser, launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Issue 22, part 2, in Chromium: a page on another port of the same host (same-site, another
 * origin) plants the cookies an anonymous visit to the sign-in page gets, and auto-submits a
 * dashboard form with the matching token. Before the fix the CSRF secret was that cookie's, so
 * the victim's forwarding address changed; now the secret is the session's and the browser's
 * `Sec-Fetch-Site`/`Origin` say where the form came from. And a token from before a sign-out is
 * no good in the next session.
 */

/** A site of the attacker's: one page, which plants cookies and posts a form at once. */
function attackerSite(page: () => { cookies: string[]; html: string }): Promise<Server> {
  const site = createServer((_request, response) => {
    const { cookies, html } = page();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': cookies });
    response.end(html);
  });
  return new Promise((resolve) => site.listen(0, '127.0.0.1', () => resolve(site)));
}

const autoPost = (action: string, fields: Record<string, string>) => `<!doctype html>
<form method="post" action="${action}">
${Object.entries(fields)
  .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
  .join('\n')}
</form>
<script>document.forms[0].submit()</script>`;

/** What an anonymous visit to the sign-in page gets: its cookies and the form's token. */
async function anonymousVisit(
  url: string,
): Promise<{ cookies: [string, string][]; token: string }> {
  const res = await fetch(`${url}/dashboard/sign-in`);
  const cookies = res.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]?.split('=') as [string, string]);
  const token = /name="_csrf" value="([^"]+)"/.exec(await res.text())?.[1] ?? '';
  return { cookies, token };
}

describeInBrowser('CSRF in Chromium (issue 22)', () => {
  let server: TestServer;
  let me: TestAccount;
  let url: string;
  let browser: Browser;
  let attacker: Server;
  let attackerPage = () => ({ cookies: [] as string[], html: '' });
  let attackerUrl: string;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    server = await startTestServer();
    url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    attacker = await attackerSite(() => attackerPage());
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    attacker?.close();
    await server?.close();
  });

  beforeEach(async () => {
    await context?.close();
    me = await server.account();
    await server.call('POST', Paths.updateDisplayName, {
      key: me.apiKey,
      body: { display_name: `victim-${me.accountId.slice(-6)}` },
    });
    context = await browser.newContext();
    page = await context.newPage();
  });

  const signIn = async (apiKey = me.apiKey) => {
    await page.goto(`${url}/dashboard/sign-in`);
    await page.fill('#api_key', apiKey);
    await Promise.all([page.waitForURL(`${url}/dashboard`), page.click('button[type=submit]')]);
  };
  const forwarding = async () =>
    (await server.call('GET', Paths.forwardingStatus, { key: me.apiKey })).json();

  /** The victim opens the attacker's page; the answer to the form it posts at once. */
  const visitAttacker = async (action: string) => {
    const answer = page.waitForResponse((res) => res.url() === `${url}${action}`);
    await page.goto(attackerUrl);
    return answer;
  };

  it('a page on another port plants the sign-in page’s cookies and posts the forwarding form: refused', async () => {
    await signIn();
    const { cookies, token } = await anonymousVisit(url);
    expect(cookies.length).toBeGreaterThan(0);
    attackerPage = () => ({
      // Every cookie the visit got, for /dashboard (sent before the victim's own, for /), and
      // as `_csrf`, where the secret was kept before.
      cookies: [...cookies, ['_csrf', cookies[0]?.[1] ?? '']].map(
        ([name, value]) => `${name}=${value}; Path=/dashboard`,
      ),
      html: autoPost(`${url}/dashboard/account/forwarding`, {
        _csrf: token,
        enabled: 'true',
        email: 'attacker@evil.test',
      }),
    });
    const answer = await visitAttacker('/dashboard/account/forwarding');
    expect(answer.status()).toBe(403);
    expect(await page.textContent('h1')).toBe('Sent from another site');
    expect(await forwarding()).toEqual({ enabled: false, email: '' });
    // The victim's own session still works.
    await page.goto(`${url}/dashboard/account`);
    expect(page.url()).toBe(`${url}/dashboard/account`);
  });

  it('nor can it sign the victim in to the attacker’s account (login CSRF)', async () => {
    const theirs = await server.account();
    const { cookies, token } = await anonymousVisit(url);
    attackerPage = () => ({
      cookies: cookies.map(([name, value]) => `${name}=${value}; Path=/`),
      html: autoPost(`${url}/dashboard/sign-in`, { _csrf: token, api_key: theirs.apiKey }),
    });
    const answer = await visitAttacker('/dashboard/sign-in');
    expect(answer.status()).toBe(403);
    await page.goto(`${url}/dashboard`);
    expect(page.url()).toBe(`${url}/dashboard/sign-in`);
  });

  it('a token issued before sign-out is refused in the next session', async () => {
    await signIn();
    await page.goto(`${url}/dashboard/account`);
    const before = await page.inputValue(
      'form[action="/dashboard/account/forwarding"] [name=_csrf]',
    );
    await Promise.all([
      page.waitForURL(`${url}/dashboard/sign-in?done=signed-out`),
      page.click('form[action="/dashboard/sign-out"] button'),
    ]);
    await signIn();
    await page.goto(`${url}/dashboard/account`);
    const form = 'form[action="/dashboard/account/forwarding"]';
    await page.$eval(
      `${form} [name=_csrf]`,
      (input, token) => {
        (input as HTMLInputElement).value = token;
      },
      before,
    );
    await page.check(`${form} [name=enabled][value=true]`);
    await page.fill('#email', 'attacker@evil.test');
    const answer = page.waitForResponse(`${url}/dashboard/account/forwarding`);
    await page.click(`${form} button[type=submit]`);
    expect((await answer).status()).toBe(403);
    expect(await page.textContent('h1')).toBe('This form has expired');
    expect(await forwarding()).toEqual({ enabled: false, email: '' });
    // The page as served, with this session's token, is accepted.
    await page.goto(`${url}/dashboard/account`);
    await page.check(`${form} [name=enabled][value=true]`);
    await page.fill('#email', 'me@example.com');
    await Promise.all([
      page.waitForURL(`${url}/dashboard/account?done=forwarding-on`),
      page.click(`${form} button[type=submit]`),
    ]);
    expect(await forwarding()).toEqual({ enabled: true, email: 'me@example.com' });
  });
});
