import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  afterAllClose,
  type BrowserPage,
  describeInBrowser,
  seriousAccessibilityViolations,
  signedInPage,
  watchProblems,
} from '../helpers/browser.js';
import { RUNS, seedTests } from '../helpers/seed-tests.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Set SCREENSHOTS_DIR to see the pages (docs/screenshots). */
const SCREENSHOTS_DIR = process.env.SCREENSHOTS_DIR;
const shoot = async (page: BrowserPage['page'], name: string) => {
  if (!SCREENSHOTS_DIR) return;
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS_DIR, name), fullPage: true });
};

describeInBrowser('the Tests pages in Chromium', () => {
  let server: TestServer;
  let me: TestAccount;
  let url: string;
  let my: BrowserPage;

  beforeAll(async () => {
    server = await startTestServer();
    me = await server.account();
    await seedTests(server, me);
    ({ url, my } = await signedInPage(server, me));
  });

  afterAllClose(() => ({ my, server }));

  it('goes from the project page to the Tests view, its tabs and search, accessibly', async () => {
    await my.page.goto(`${url}/dashboard/projects/${me.projectId}`);
    await my.page.click('text=Tests: flaky, failing, slowest');
    await my.page.waitForURL(/\/tests\?range=30d$/);
    expect(await my.page.locator('h1').textContent()).toBe('Tests');
    expect(await my.page.locator('tbody tr').allTextContents()).toHaveLength(1);
    expect(await my.page.locator('tbody tr a').textContent()).toBe('planted › flips');
    expect(await seriousAccessibilityViolations(my.page)).toEqual([]);
    await shoot(my.page, 'tests-view.png');

    await my.page.click('nav[aria-label="Test lists"] >> text=Most failing');
    expect(await my.page.locator('tbody tr a').allTextContents()).toEqual([
      'planted › broken',
      'planted › flips',
    ]);
    expect(await my.page.locator('[aria-current="page"]').last().textContent()).toBe(
      'Most failing',
    );
    await my.page.click('nav[aria-label="Test lists"] >> text=Slowest');
    expect(await my.page.locator('tbody tr a').first().textContent()).toBe('planted › slow');
    await my.page.fill('#q', 'steady');
    await my.page.click('form.filters button[type=submit]');
    await my.page.waitForURL(/q=steady/);
    expect(await my.page.locator('tbody tr a').allTextContents()).toEqual([
      'planted › steady 1',
      'planted › steady 2',
    ]);
    expect(await seriousAccessibilityViolations(my.page)).toEqual([]);
    expect(my.problems).toEqual([]);
  });

  it("shows a test's history strip and quarantines it with the page's form", async () => {
    await my.page.goto(`${url}/dashboard/projects/${me.projectId}/tests`);
    await my.page.click('tbody tr a');
    await my.page.waitForURL(/\/tests\/[^/?]+\?range=30d/);
    expect(await my.page.locator('h1').textContent()).toBe('flips');
    const cells = my.page.locator('.history-strip a');
    expect(await cells.count()).toBe(RUNS);
    // Each cell links to its run's row in the table below.
    const href = (await cells.last().getAttribute('href')) as string;
    expect(await my.page.locator(href).locator('td').nth(1).textContent()).toBe('passed');
    expect(await my.page.locator('svg[role=img][aria-label^="Duration"]').count()).toBe(1);
    expect(await seriousAccessibilityViolations(my.page)).toEqual([]);
    await shoot(my.page, 'test-page.png');

    await my.page.fill('#reason', 'flips on slow runners');
    await my.page.click('text=Quarantine this test');
    await my.page.waitForSelector('text=Take out of quarantine');
    const list = await server.call('GET', `/stats/get-quarantine?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(list.json().tests.map((t: { reason: string }) => t.reason)).toEqual([
      'flips on slow runners',
    ]);
    expect(await seriousAccessibilityViolations(my.page)).toEqual([]);
    await my.page.click('text=Take out of quarantine');
    await my.page.waitForSelector('#reason');
    expect(my.problems).toEqual([]);
  });

  /** A share link of the project, made once, and a visitor's context without a session. */
  let shared: { token: string; visitor: Awaited<ReturnType<typeof openVisitor>> } | undefined;
  async function openVisitor() {
    // bypassCSP only lets axe-core's script in.
    const context = await my.browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    return { context, page, problems: watchProblems(page) };
  }
  async function share() {
    if (shared) return shared;
    const created = await server.call('POST', '/stats/create-share-link', {
      key: me.apiKey,
      body: { projectId: me.projectId },
    });
    shared = { token: (created.json() as { token: string }).token, visitor: await openVisitor() };
    return shared;
  }
  afterAll(async () => {
    await shared?.visitor.context.close();
  });

  it("goes from a share link's page to its Tests view, read-only, with its filters", async () => {
    const { token, visitor: v } = await share();
    const visitor = v.page;
    await visitor.goto(`${url}/share/${token}?range=7d`);
    await visitor.click('text=Tests: flaky, failing, slowest');
    await visitor.waitForURL(new RegExp(`/share/${token}/tests\\?range=7d$`));
    expect(await visitor.locator('h1').textContent()).toBe('Tests');
    expect(await visitor.locator('#range').inputValue()).toBe('7d');
    expect(await visitor.locator('tbody tr a').allTextContents()).toEqual(['planted › flips']);
    expect(await visitor.locator('form[method=post]').count()).toBe(0);
    expect(await seriousAccessibilityViolations(visitor)).toEqual([]);
    await shoot(visitor, 'share-tests-view.png');

    // The filters keep to the share link's pages.
    await visitor.click('nav[aria-label="Test lists"] >> text=Slowest');
    await visitor.waitForURL(/tab=slowest/);
    await visitor.selectOption('#range', '24h');
    await visitor.fill('#q', 'steady');
    await visitor.click('form.filters button[type=submit]');
    await visitor.waitForURL(/range=24h.*q=steady/);
    expect(visitor.url()).toContain(`/share/${token}/tests?`);
    expect(await visitor.locator('tbody tr a').allTextContents()).toEqual([
      'planted › steady 1',
      'planted › steady 2',
    ]);
    expect(v.problems).toEqual([]);
  });

  it("shows a test's page on a share link without its quarantine form", async () => {
    const { token, visitor: v } = await share();
    const visitor = v.page;
    await visitor.goto(`${url}/share/${token}/tests`);
    await visitor.click('tbody tr a');
    await visitor.waitForURL(new RegExp(`/share/${token}/tests/[^/?]+\\?range=30d`));
    expect(await visitor.locator('h1').textContent()).toBe('flips');
    expect(await visitor.locator('.history-strip a').count()).toBe(RUNS);
    expect(await visitor.locator('form').count()).toBe(0);
    expect(await visitor.locator('#reason').count()).toBe(0);
    expect(await seriousAccessibilityViolations(visitor)).toEqual([]);
    await shoot(visitor, 'share-test-page.png');
    await visitor.click('text=All tests');
    await visitor.waitForURL(new RegExp(`/share/${token}/tests\\?range=30d&tab=flaky$`));
    await visitor.click('text=Back to the project');
    await visitor.waitForURL(new RegExp(`/share/${token}\\?range=30d$`));
    expect(v.problems).toEqual([]);
  });
});
