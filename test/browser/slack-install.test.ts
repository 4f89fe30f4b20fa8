import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInBrowser, launchBrowser, watchProblems } from '../helpers/browser.js';
import { type FakeSlackApi, fakeSlackApi } from '../helpers/fake-slack-api.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * "Add to Slack" in Chromium, under the pages' own policies (no bypassCSP): the Channels page's
 * form is redirected to Slack's authorize page (which the page's CSP form-action must allow), the
 * fake Slack approves and sends the browser back, and the new channel's edit page opens.
 */
describeInBrowser('Add to Slack in Chromium', () => {
  let server: TestServer;
  let me: TestAccount;
  let slack: FakeSlackApi;
  let url: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    slack = fakeSlackApi([], ['C0BUILDS01'], {
      clientId: '1111111111.2222222222',
      clientSecret: 'cLiEnTsEcReT0123456789abcdef',
      team: { id: 'T0ACME0001', name: 'Acme' },
      workspace: 'acme',
      channel: { id: 'C0BUILDS01', name: '#builds' },
    });
    await slack.service.start();
    server = await startTestServer({
      SLACK_API_ORIGIN: slack.service.origin,
      SLACK_CLIENT_ID: '1111111111.2222222222',
      SLACK_CLIENT_SECRET: 'cLiEnTsEcReT0123456789abcdef',
    });
    me = await server.account();
    url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
    problems = watchProblems(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await slack?.service.stop();
  });

  it('installs the app from the Channels page and opens the new channel', async () => {
    await page.goto(`${url}/dashboard/sign-in`);
    await page.fill('#api_key', me.apiKey);
    await page.click('button[type=submit]');
    await page.goto(`${url}/dashboard/projects/${me.projectId}/channels`);
    await page.click('button:has-text("Add to Slack")');
    await page.waitForURL(/\/edit\?done=slack-installed$/);
    expect(await page.locator('.notice').textContent()).toContain('Slack is connected');
    expect(await page.locator('h1').textContent()).toBe('Edit #builds · Acme');
    expect(slack.service.requests.map((r) => r.path)).toEqual([
      '/oauth/v2/authorize',
      '/api/oauth.v2.access',
    ]);
    expect(problems).toEqual([]);
  });
});
