import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeInBrowser,
  drawAllCharts,
  launchBrowser,
  watchProblems,
} from '../helpers/browser.js';
import { storeEvent, storeMetric } from '../helpers/seed-records.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * BASE_PATH=/ci-stats in Chromium, under the pages' own security policies (no bypass): signing in
 * by the form, the project page's charts drawn by its scripts, a share link's badge previews.
 * Every request the browser makes is under the base path and none fails.
 */

const BASE = '/ci-stats';
const HOUR = 3_600_000;

describeInBrowser('BASE_PATH=/ci-stats in Chromium', () => {
  let server: TestServer;
  let me: TestAccount;
  let origin: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const requests: string[] = [];
  const failed: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ BASE_PATH: BASE });
    me = await server.account();
    const now = Date.now();
    for (let i = 0; i < 12; i++) {
      const at = now - (12 - i) * 6 * HOUR;
      await storeEvent(server, me.projectId, at, 'build', {
        status: i % 4 === 0 ? 'failure' : 'success',
        ci: { branch: 'main' },
      });
      await storeMetric(server, me.projectId, at, { duration_ms: 60_000 + i * 1000 });
    }
    origin = (await server.app.listen({ port: 0, host: '127.0.0.1' })).replace(
      'localhost',
      '127.0.0.1',
    );
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    problems = watchProblems(page);
    page.on('request', (request) => requests.push(request.url()));
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    page.on('requestfailed', (request) => failed.push(`failed ${request.url()}`));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('signs in, draws the project page and shows a share link’s badges, all under /ci-stats', async () => {
    await page.goto(`${origin}${BASE}/`);
    await page.click(`a[href="${BASE}/dashboard/sign-in"]`);
    await page.fill('#api_key', me.apiKey);
    await page.click('button[type=submit]');
    await page.waitForURL(`${origin}${BASE}/dashboard`);

    await page.click(`nav a[href="${BASE}/dashboard/projects"]`);
    await page.click(`a[href="${BASE}/dashboard/projects/${me.projectId}"]`);
    await drawAllCharts(page);

    await page.click('button:has-text("Create a share link")');
    await page.waitForSelector('#new-share-link');
    await page.click('.badges summary');
    const badge = page.locator('.badge-list img').first();
    await badge.waitFor();
    await expect
      .poll(() => badge.evaluate((img) => (img as HTMLImageElement).naturalWidth))
      .toBeGreaterThan(0);
    const shareUrl = await page.inputValue('#new-share-link');
    expect(shareUrl.startsWith(`${origin}${BASE}/share/`)).toBe(true);
    await page.goto(shareUrl);
    await drawAllCharts(page);

    expect(problems).toEqual([]);
    expect(failed).toEqual([]);
    const outside = requests.filter((url) => !url.startsWith(`${origin}${BASE}`));
    expect(outside).toEqual([]);
    // Scripts, stylesheets and the favicon were among them, each under the base path.
    for (const kind of ['/assets/', '.js', '.css']) {
      expect(
        requests.some((url) => url.includes(kind)),
        kind,
      ).toBe(true);
    }
  });
});
