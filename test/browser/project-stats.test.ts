import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import {
  afterAllClose,
  type BrowserPage,
  describeInBrowser,
  drawAllCharts,
  seriousAccessibilityViolations,
  signedInPage,
  watchProblems,
} from '../helpers/browser.js';
import { seededRandom, storeEvent, storeMetric } from '../helpers/seed-records.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Set SCREENSHOTS_DIR to refresh the docs' screenshots (docs/screenshots). */
const SCREENSHOTS_DIR = process.env.SCREENSHOTS_DIR;
const HOUR = 3_600_000;
const BRANCHES = ['main', 'develop', 'feature/login'];
const STATUSES = ['success', 'success', 'success', 'failure', 'cancelled'];

describeInBrowser('the project statistics page in Chromium', () => {
  let server: TestServer;
  let me: TestAccount;
  let url: string;
  /** The signed-in browser, its page, and what the page complained about. */
  let my: BrowserPage;

  beforeAll(async () => {
    server = await startTestServer();
    me = await server.account();
    // Two months of builds, every 5 hours, in time order as they would arrive.
    const random = seededRandom(3);
    const now = Date.now();
    for (let t = now - 60 * 24 * HOUR, i = 0; t < now - HOUR; t += 5 * HOUR, i++) {
      const branch = BRANCHES[i % 3] as string;
      const github = {
        repository: 'octo/app',
        sha: `${i.toString(16).padStart(7, '0')}abcdef`,
        ref: `refs/heads/${branch}`,
        run_url: `https://github.com/octo/app/actions/runs/${1000 + i}`,
      };
      const status = STATUSES[i % STATUSES.length] as string;
      await storeEvent(server, me.projectId, t, 'build', { status, github });
      await storeMetric(server, me.projectId, t, {
        duration_ms: Math.round(90_000 + random() * 60_000 + (branch === 'main' ? 30_000 : 0)),
        tests: { passed: 400 + (i % 40), failed: i % 7 === 0 ? 1 : 0 },
        github,
      });
    }
    if (SCREENSHOTS_DIR) mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    ({ url, my } = await signedInPage(server, me));
  });

  afterAllClose(() => ({ my, server }));

  const statsUrl = () => `${url}/dashboard/projects/${me.projectId}`;
  /** How many points each chart drew, once every chart is drawn. */
  const drawn = async (target = my.page) => {
    await drawAllCharts(target);
    return target.$$eval('.chart[data-drawn]', (nodes) =>
      nodes.map((node) => Number(node.getAttribute('data-drawn'))),
    );
  };
  /** Pixels of the first chart's canvas that are not blank. */
  const inked = (target = my.page) =>
    target.$eval('.chart canvas', (canvas) => {
      const c = canvas as HTMLCanvasElement;
      const pixels = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? [];
      let count = 0;
      for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] as number) > 0) count++;
      return count;
    });

  it('draws a chart per series key, with build health and the timeline', async () => {
    await my.page.goto(statsUrl());
    expect(await my.page.locator('h1').textContent()).toBe('test project');
    const points = await drawn();
    expect(points).toHaveLength(3); // duration_ms, tests.failed, tests.passed
    expect(Math.min(...points)).toBeGreaterThan(50);
    expect(await inked()).toBeGreaterThan(500);
    expect(await my.page.locator('.health-bars rect').count()).toBeGreaterThan(50);
    expect(await my.page.locator('.health-rate .stat-value').textContent()).toMatch(/^\d+\.\d %$/);
    const first = my.page.locator('.timeline li').first();
    await expect
      .poll(() => first.locator('a').first().getAttribute('href'))
      .toMatch(/^https:\/\/github\.com\/octo\/app\/commit\//);
    expect(await my.page.locator('.timeline li').count()).toBe(20);
    expect(await seriousAccessibilityViolations(my.page)).toEqual([]);
    expect(my.problems).toEqual([]);
    if (SCREENSHOTS_DIR) {
      await my.page.screenshot({
        path: join(SCREENSHOTS_DIR, 'project-stats.png'),
        fullPage: true,
      });
    }
  });

  it('on a phone, draws a chart and fetches uPlot only when the chart nears the screen', async () => {
    await my.page.setViewportSize({ width: 390, height: 844 });
    const asked: string[] = [];
    const listen = (request: { url(): string }) => asked.push(request.url());
    const uplot = () => asked.filter((address) => /\/assets\/uplot\.[^/]+\.js$/.test(address));
    my.page.on('request', listen);
    try {
      await my.page.goto(statsUrl(), { waitUntil: 'networkidle' });
      const first = my.page.locator('.chart[data-key]').first();
      // The page's first screens (headline, filters, build health, tables) come before any chart:
      // the first starts beyond the half screen ahead that the script draws in advance.
      const top = await first.evaluate((node) => node.getBoundingClientRect().top);
      expect(top).toBeGreaterThan(844 * 1.5);
      expect(await my.page.locator('.chart[data-drawn]').count()).toBe(0);
      expect(uplot()).toEqual([]);

      await first.scrollIntoViewIfNeeded();
      await expect.poll(() => first.getAttribute('data-drawn')).not.toBeNull();
      expect(uplot()).toHaveLength(1);
      expect(await inked()).toBeGreaterThan(500);
      expect(my.problems).toEqual([]);
    } finally {
      my.page.off('request', listen);
      await my.page.setViewportSize({ width: 1200, height: 900 });
    }
  });

  it('follows the system’s dark mode, charts included, and stays accessible', async () => {
    await my.page.emulateMedia({ colorScheme: 'dark' });
    try {
      await my.page.goto(statsUrl());
      await drawn();
      const background = await my.page.evaluate(
        () => getComputedStyle(document.body).backgroundColor,
      );
      expect(background).toBe('rgb(15, 18, 22)');
      expect(await inked()).toBeGreaterThan(500);
      expect(await seriousAccessibilityViolations(my.page)).toEqual([]);
      if (SCREENSHOTS_DIR) {
        await my.page.screenshot({ path: join(SCREENSHOTS_DIR, 'project-stats-dark.png') });
      }
    } finally {
      await my.page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('the range picker and the branch filter change what is drawn', async () => {
    await my.page.goto(statsUrl());
    const month = await drawn();
    await my.page.selectOption('#range', '7d');
    await my.page.waitForURL(/range=7d/);
    const week = await drawn();
    expect(week[0]).toBeLessThan(month[0] as number);
    expect(week[0]).toBeGreaterThan(0);
    await my.page.selectOption('#branch', 'main');
    await my.page.waitForURL(/branch=main/);
    const mainOnly = await drawn();
    expect(mainOnly[0]).toBeLessThan(week[0] as number);
    expect(await my.page.locator('.timeline .branch').allTextContents()).toEqual(
      expect.arrayContaining(['main']),
    );
    expect(new Set(await my.page.locator('.timeline .branch').allTextContents())).toEqual(
      new Set(['main']),
    );
  });

  it('shows a tooltip with the value and time under the cursor, and zooms by dragging', async () => {
    await my.page.goto(`${statsUrl()}?range=90d`);
    await drawn();
    const over = my.page.locator('.chart .u-over').first();
    // Below the headline: brought into view, where the mouse can reach it.
    await over.scrollIntoViewIfNeeded();
    const box = await over.boundingBox();
    if (!box) throw new Error('no chart');
    await my.page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
    const tooltip = my.page.locator('.chart-tooltip').first();
    await expect.poll(() => tooltip.isVisible()).toBe(true);
    expect(await tooltip.textContent()).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d UTC · p50 [\d,.]+ · p95/,
    );
    const range = () => my.page.locator('.chart').first().getAttribute('data-x-range');
    const before = await range();
    expect(before).toMatch(/UTC – .*UTC$/);
    await my.page.mouse.down();
    await my.page.mouse.move(box.x + box.width * 0.7, box.y + box.height / 2, { steps: 5 });
    await my.page.mouse.up();
    await expect.poll(range).not.toBe(before);
  });

  it('names the branch and commit of a single point in its tooltip', async () => {
    await my.page.goto(`${statsUrl()}?range=24h`);
    expect((await drawn())[0]).toBeGreaterThan(2);
    const over = my.page.locator('.chart .u-over').first();
    await over.scrollIntoViewIfNeeded();
    const box = await over.boundingBox();
    if (!box) throw new Error('no chart');
    await my.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const tooltip = my.page.locator('.chart-tooltip').first();
    await expect.poll(() => tooltip.isVisible()).toBe(true);
    const text = await tooltip.textContent();
    expect(text, text ?? '').toMatch(
      /· 1 point · .* · branch (main|develop|feature\/login) · commit [0-9a-f]{12}$/,
    );
  });

  it('shares the page read-only, with badges, until the link is revoked', async () => {
    await my.page.goto(statsUrl());
    await my.page.click('text=Create a share link');
    const link = await my.page.inputValue('#new-share-link');
    expect(link).toMatch(new RegExp(`^${url}/share/cis_share_`));

    const stranger = await my.browser.newContext();
    const visitor = await stranger.newPage();
    const visitorProblems = watchProblems(visitor);
    await visitor.goto(link);
    expect(await visitor.locator('h1').textContent()).toBe('test project');
    expect(await drawn(visitor)).toHaveLength(3);
    expect(await inked(visitor)).toBeGreaterThan(500);
    expect(await visitor.locator('#share-title').count()).toBe(0);
    expect(await visitor.locator('form[method=post]').count()).toBe(0);
    expect(visitorProblems).toEqual([]);
    const badge = await fetch(`${link}/badge/status.svg`);
    expect(badge.headers.get('cache-control')).toBe('max-age=60');
    expect(await badge.text()).toMatch(/<svg[^>]*>.*build.*(success|failure|cancelled)/s);

    await my.page.goto(statsUrl());
    await my.page.click('.share-links button:has-text("Revoke")');
    expect(await my.page.locator('.notice').first().textContent()).toContain('revoked');
    const gone = await visitor.goto(link);
    expect(gone?.status()).toBe(404);
    expect((await fetch(`${link}/badge/status.svg`)).status).toBe(404);
    await stranger.close();
  });

  it('works without JavaScript: filters, health bars, the table of keys and the timeline', async () => {
    const plain = await my.browser.newContext({ javaScriptEnabled: false });
    const cookies = await my.context.cookies();
    await plain.addCookies(cookies);
    const noScript = await plain.newPage();
    await noScript.goto(statsUrl());
    expect(await noScript.locator('.health-bars rect').count()).toBeGreaterThan(50);
    // The key table's three keys, and the table by event type's one type.
    expect(await noScript.locator('table:not([data-sortable]) tbody tr').count()).toBe(3);
    expect(await noScript.locator('table[data-sortable] tbody tr').count()).toBe(1);
    await noScript.selectOption('#range', '24h');
    await noScript.click('.filters button[type=submit]');
    expect(noScript.url()).toContain('range=24h');
    expect(await noScript.locator('.timeline li').count()).toBeGreaterThan(0);
    await plain.close();
  });
});
