import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import {
  afterAllClose,
  type BrowserPage,
  describeInBrowser,
  drawAllCharts,
  signedInPage,
} from '../helpers/browser.js';
import { storeEvent, storeMetric } from '../helpers/seed-records.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const HOUR = 3_600_000;

/**
 * The rough edges a new-user trial found on the statistics page (issue 28), each as it looked to
 * that user: a box measured in the browser, a key pressed, a page scrolled.
 */
describeInBrowser('the rough edges of the statistics pages, in Chromium', () => {
  let server: TestServer;
  let me: TestAccount;
  let url: string;
  let my: BrowserPage;

  beforeAll(async () => {
    server = await startTestServer();
    me = await server.account();
    const now = Date.now();
    for (let t = now - 20 * 24 * HOUR, i = 0; t < now - HOUR; t += 5 * HOUR, i++) {
      const github = {
        repository: 'octo/app',
        sha: `${i.toString(16).padStart(7, '0')}abcdef`,
        ref: `refs/heads/${i % 2 ? 'main' : 'develop'}`,
        run_url: `https://github.com/octo/app/actions/runs/${1000 + i}`,
      };
      await storeEvent(server, me.projectId, t, 'build', { status: 'success', github });
      await storeMetric(server, me.projectId, t, {
        duration_ms: 90_000 + ((i * 7919) % 60_000),
        bundle_bytes: 500_000 + i,
        github,
      });
    }
    // One record of its own key, an hour ago: its chart holds one point.
    await storeMetric(server, me.projectId, now - HOUR, { lonely: 1 });
    ({ url, my } = await signedInPage(server, me));
  });

  afterAllClose(() => ({ my, server }));

  const statsUrl = () => `${url}/dashboard/projects/${me.projectId}`;
  const box = async (page: Page, selector: string) => {
    const found = await page.locator(selector).first().boundingBox();
    if (!found) throw new Error(`${selector} is not shown`);
    return found;
  };

  /** Hovers the first chart at `fraction` of its width; the tooltip's box and its card's. */
  async function tooltipAt(page: Page, fraction: number) {
    await drawAllCharts(page);
    await page.locator('.chart-card').first().scrollIntoViewIfNeeded();
    const over = await box(page, '.chart .u-over');
    await page.mouse.move(over.x + over.width * fraction, over.y + over.height / 2);
    const tooltip = page.locator('.chart-tooltip').first();
    await expect.poll(() => tooltip.isVisible()).toBe(true);
    return { tip: await box(page, '.chart-tooltip'), card: await box(page, '.chart-card') };
  }

  const inside = (
    inner: { x: number; y: number; width: number; height: number },
    outer: { x: number; width: number },
  ) => {
    expect(inner.x).toBeGreaterThanOrEqual(outer.x - 0.5);
    expect(inner.x + inner.width).toBeLessThanOrEqual(outer.x + outer.width + 0.5);
  };

  it('1. keeps the tooltip inside its card at 1280 px, at both edges of the chart', async () => {
    await my.page.setViewportSize({ width: 1280, height: 900 });
    await my.page.goto(`${statsUrl()}?range=30d`);
    for (const fraction of [0.02, 0.5, 0.98]) {
      const { tip, card } = await tooltipAt(my.page, fraction);
      inside(tip, card);
    }
  });

  it('1. keeps the tooltip inside the viewport (and its card) at 390 px', async () => {
    await my.page.setViewportSize({ width: 390, height: 844 });
    try {
      await my.page.goto(`${statsUrl()}?range=30d`);
      for (const fraction of [0.02, 0.5, 0.98]) {
        const { tip, card } = await tooltipAt(my.page, fraction);
        inside(tip, { x: 0, width: 390 });
        inside(tip, card);
      }
    } finally {
      await my.page.setViewportSize({ width: 1200, height: 900 });
    }
  });

  it('2. an arrow key on a focused select does not navigate; Enter applies it', async () => {
    for (const select of ['#range', '#branch']) {
      await my.page.goto(`${statsUrl()}?range=7d`);
      const before = my.page.url();
      const chosen = await my.page.inputValue(select);
      await my.page.focus(select);
      await my.page.keyboard.press('ArrowDown');
      await my.page.waitForTimeout(700);
      expect(my.page.url()).toBe(before);
      const now = await my.page.inputValue(select);
      expect(now).not.toBe(chosen);
      await Promise.all([
        my.page.waitForURL((u) => u.href !== before),
        my.page.keyboard.press('Enter'),
      ]);
      const name = select === '#range' ? 'range' : 'branch';
      expect(new URL(my.page.url()).searchParams.get(name)).toBe(now);
    }
  });

  it('3. shows a new share link at the top, copies it, and a refresh does not post again', async () => {
    await my.page.goto(statsUrl());
    const linksBefore = await my.page.locator('.share-links li').count();
    await my.page.click('text=Create a share link');
    // Post/redirect/get: the page is a GET of the page's own address.
    expect(my.page.url()).toBe(statsUrl());
    const field = my.page.locator('#new-share-link');
    expect(await field.inputValue()).toMatch(new RegExp(`^${url}/share/cis_share_`));
    const shown = await box(my.page, '#new-share-link');
    expect(await my.page.evaluate(() => window.scrollY)).toBe(0);
    expect(shown.y + shown.height).toBeLessThanOrEqual(900);
    await my.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    await my.page.click('button[data-copy="new-share-link"]');
    await expect
      .poll(() => my.page.locator('button[data-copy="new-share-link"]').textContent())
      .toBe('Copied');
    expect(await my.page.evaluate(() => navigator.clipboard.readText())).toBe(
      await field.inputValue(),
    );
    expect(await my.page.locator('.share-links li').count()).toBe(linksBefore + 1);
    await my.page.reload();
    // Shown once: gone after a refresh, and no second link was created.
    expect(await my.page.locator('#new-share-link').count()).toBe(0);
    expect(await my.page.locator('.share-links li').count()).toBe(linksBefore + 1);
  });

  it('3. new API keys get a copy button', async () => {
    await my.page.goto(`${url}/dashboard/keys`);
    await my.page.fill('#label', 'copy me');
    await my.page.click('form[action="/dashboard/keys"] button[type=submit]');
    const key = (await my.page.locator('#new-api-key').inputValue()).trim();
    expect(key).toMatch(/^cis_/);
    await my.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    await my.page.click('button[data-copy="new-api-key"]');
    await expect
      .poll(() => my.page.locator('button[data-copy="new-api-key"]').textContent())
      .toBe('Copied');
    expect(await my.page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  });

  it('4. picking a preset after a custom range leaves no stale from/to in the address', async () => {
    await my.page.goto(`${statsUrl()}?range=custom&from=2020-01-01&to=2020-01-31`);
    await my.page.selectOption('#range', '7d');
    await my.page.waitForURL(/range=7d/);
    const query = new URL(my.page.url()).searchParams;
    expect(query.get('from')).toBeNull();
    expect(query.get('to')).toBeNull();
  });

  it('4. a chart of one point says "1 point", not "1 points"', async () => {
    await my.page.goto(`${statsUrl()}?range=24h&chart=lonely`);
    const caption = await my.page.locator('.chart-card figcaption').first().textContent();
    expect(caption).toContain('1 point in range');
    expect(caption).not.toContain('1 points');
  });

  it('6. at 390 px the header is compact (64 px at most) and the charts are denser', async () => {
    await my.page.setViewportSize({ width: 390, height: 844 });
    try {
      await my.page.goto(`${statsUrl()}?range=30d`);
      await drawAllCharts(my.page);
      const header = await box(my.page, '.topbar');
      expect(header.height).toBeLessThanOrEqual(64);
      const chart = await box(my.page, '.chart-card');
      expect(chart.height).toBeLessThanOrEqual(240);
      const width = await my.page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(390);
    } finally {
      await my.page.setViewportSize({ width: 1200, height: 900 });
    }
  });
});
