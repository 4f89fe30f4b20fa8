import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import {
  AUDIT_SCHEMES,
  AUDIT_WIDTHS,
  accessibilityViolations,
  auditContext,
  describeInBrowser,
  launchBrowser,
  watchProblems,
} from '../helpers/browser.js';
import { type FakePlatform, fakeSlack } from '../helpers/fake-platforms.js';
import { seedTests } from '../helpers/seed-tests.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Issue 28's "axe-core: no violation on every page", for the signed-in pages that
 * pages-at-a-glance.test.ts does not open (server/http/pages: dashboard/*-pages.ts and
 * tests/tests-pages.ts), each holding what it lists (a key, a threshold, an active alert, a
 * channel, test results): projects, site, account, API keys, series and thresholds (with the
 * alerts), data, channels and a channel's edit page, the Tests view and a test's page, and the
 * share link's Tests view and test page; at 1280 and 390 px, light and dark. axe-core at every
 * impact, nothing wider than the viewport, no error said by the page.
 */

const SLACK_PATH = '/services/T0001AAAA/B0002BBBB/sLaCkSeCrEt0123456789';

describeInBrowser('every signed-in page at 1280 and 390 px, light and dark', () => {
  let server: TestServer;
  let me: TestAccount;
  let slack: FakePlatform;
  let browser: Browser;
  let cookies: { name: string; value: string; url: string }[];
  const pages: [string, string][] = [];

  beforeAll(async () => {
    slack = fakeSlack([SLACK_PATH]);
    await slack.service.start();
    server = await startTestServer({
      SLACK_WEBHOOK_ORIGIN: slack.service.origin,
      SECRETS_KEY: 'signed-in-pages-test-key-0123456789abcdefgh',
    });
    me = await server.account();
    const api = async (path: string, body: unknown, status = 200) => {
      const res = await server.call('POST', path, { key: me.apiKey, body });
      expect(res.statusCode, `${path}: ${res.body}`).toBe(status);
      return res.json() as Record<string, unknown>;
    };
    await seedTests(server, me);
    // A threshold, and a regression it raises (an active alert on the series page).
    await api(
      VerdictPaths.createThreshold,
      { projectId: me.projectId, key: 't', branch: '*', test: 'percentage', upper_boundary: 0.1 },
      201,
    );
    for (const [commit, value] of [
      ['aaaaaaa0', 100],
      ['aaaaaaa1', 200],
    ] as const) {
      await api(Paths.ingestMetrics, {
        projectId: me.projectId,
        payload: { t: value, directions: { t: 'lower' }, ci: { branch: 'main', commit } },
      });
    }
    for (const deadline = Date.now() + 10_000; ; ) {
      const res = await server.call('GET', `${VerdictPaths.getAlerts}?projectId=${me.projectId}`, {
        key: me.apiKey,
      });
      if ((res.json() as { alerts: unknown[] }).alerts.length > 0) break;
      if (Date.now() > deadline) throw new Error(`no alert: ${res.body}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const channel = await api(
      Paths.createChannel,
      {
        projectId: me.projectId,
        kind: 'slack',
        name: 'CI in #builds',
        url: `https://hooks.slack.com${SLACK_PATH}`,
        rules: { notify: ['failures', 'alerts'], branches: ['main'] },
      },
      201,
    );
    const link = await api(Paths.createShareLink, { projectId: me.projectId }, 201);

    const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${url}/dashboard/sign-in`);
    await page.fill('#api_key', me.apiKey);
    await page.click('button[type=submit]');
    cookies = (await context.cookies()).map((c) => ({ name: c.name, value: c.value, url }));
    // A test's page: the Tests view's first link to one.
    const project = `${url}/dashboard/projects/${me.projectId}`;
    await page.goto(`${project}/tests?range=30d`);
    const testHref = await page.getAttribute('a[href*="/tests/"]', 'href');
    expect(testHref).toBeTruthy();
    const share = `${url}/share/${link.token as string}`;
    await page.goto(`${share}/tests?range=30d`);
    const sharedTestHref = await page.getAttribute('a[href*="/tests/"]', 'href');
    expect(sharedTestHref).toBeTruthy();
    await context.close();
    pages.push(
      ['projects', `${url}/dashboard/projects`],
      ['site', `${url}/dashboard/site`],
      ['account', `${url}/dashboard/account`],
      ['keys', `${url}/dashboard/keys`],
      ['series and thresholds', `${project}/series`],
      ['data', `${project}/data`],
      ['channels', `${project}/channels`],
      ['channel edit', `${project}/channels/${channel.id as string}/edit`],
      ['tests', `${project}/tests?range=30d`],
      ['a test', new URL(testHref as string, url).href],
      ['shared tests', `${share}/tests?range=30d`],
      ['a shared test', new URL(sharedTestHref as string, url).href],
    );
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await slack?.service.stop();
  });

  for (const width of AUDIT_WIDTHS) {
    for (const scheme of AUDIT_SCHEMES) {
      it(`no axe violation, no overflow, no error at ${width} px, ${scheme}`, async () => {
        const context = await auditContext(browser, width, scheme);
        await context.addCookies(cookies);
        const found: Record<string, unknown> = {};
        try {
          for (const [name, address] of pages) {
            const page = await context.newPage();
            const problems = watchProblems(page);
            const response = await page.goto(address);
            expect(response?.status(), name).toBe(200);
            const violations = await accessibilityViolations(page);
            const wide = await page.evaluate(() => document.documentElement.scrollWidth);
            if (violations.length > 0) found[`${name}: axe`] = violations;
            if (wide > width) found[`${name}: ${wide} px wide`] = true;
            if (problems.length > 0) found[`${name}: problems`] = problems;
            await page.close();
          }
        } finally {
          await context.close();
        }
        // Every page's findings at once (one run tells them all).
        expect(found, `${width} px, ${scheme}`).toEqual({});
      }, 240_000);
    }
  }
});
