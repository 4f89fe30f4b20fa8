import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import {
  describeInBrowser,
  openBrowserPage,
  seriousAccessibilityViolations,
} from '../helpers/browser.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Set SCREENSHOTS_DIR to refresh the docs' screenshot of the page (docs/screenshots). */
const SCREENSHOTS_DIR = process.env.SCREENSHOTS_DIR;

/**
 * "Series and thresholds" in Chromium: the owner gives a series its direction, creates a
 * threshold (a refused one first), sees the regression it finds as an alert, dismisses it,
 * re-evaluates, and every state of the page passes axe in both colour schemes.
 */
describeInBrowser('the Series and thresholds page in Chromium', () => {
  let server: TestServer;
  let me: TestAccount;
  let url: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let seriesPage: string;

  const api = async (method: 'GET' | 'POST', path: string, body?: unknown) =>
    (await server.call(method, path, { key: me.apiKey, body })).json();
  const ingest = (commit: string, t: number) =>
    api('POST', Paths.ingestMetrics, {
      projectId: me.projectId,
      payload: { build_ms: t, units: { build_ms: 'ms' }, ci: { branch: 'main', commit } },
    });
  const accessible = async () => expect(await seriousAccessibilityViolations(page)).toEqual([]);
  const notice = () => page.locator('.notice.ok').textContent();
  const shoot = async (name: string) => {
    if (!SCREENSHOTS_DIR) return;
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}.png`), fullPage: true });
  };

  beforeAll(async () => {
    server = await startTestServer();
    me = await server.account();
    url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    seriesPage = `${url}/dashboard/projects/${me.projectId}/series`;
    ({ browser, page, problems } = await openBrowserPage());
    await page.goto(`${url}/dashboard/sign-in`);
    await page.fill('#api_key', me.apiKey);
    await page.click('button[type=submit]');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('is reached from the projects list and gives a series its direction', async () => {
    await ingest('c0', 100);
    await page.goto(`${url}/dashboard/projects`);
    await page.click('a:has-text("Series and thresholds")');
    expect(page.url()).toBe(seriesPage);
    expect(await page.locator('h1').textContent()).toBe('Series and thresholds');
    await accessible();
    await page.selectOption('select[aria-label="Direction of build_ms"]', 'lower');
    await page.click('button:has-text("Save build_ms")');
    expect(await notice()).toBe("The series' unit and direction are saved.");
    const keys = await api('GET', `${Paths.getMetricKeys}?projectId=${me.projectId}`);
    expect(keys.keys).toMatchObject([{ key: 'build_ms', unit: 'ms', direction: 'lower' }]);
  });

  it('shows a refused threshold beside its field, then creates the right one', async () => {
    await page.goto(seriesPage);
    await page.fill('#key', 'build_*');
    await page.selectOption('#test', 'percentage');
    await page.fill('#upper_boundary', 'a lot');
    await page.click('button:has-text("Create the threshold")');
    expect(await page.locator('#upper_boundary-error').textContent()).toBe(
      'Enter a number, or leave it empty.',
    );
    expect(await page.locator('#upper_boundary').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('.notice.bad').textContent()).toContain('Nothing was changed');
    await accessible();
    expect(
      (await api('GET', `${VerdictPaths.getThresholds}?projectId=${me.projectId}`)).thresholds,
    ).toEqual([]);

    // The form kept what was typed: only the number needs fixing.
    expect(await page.inputValue('#key')).toBe('build_*');
    await page.fill('#upper_boundary', '0.1');
    await page.click('button:has-text("Create the threshold")');
    expect(await notice()).toContain('The threshold is created');
    expect(
      (await api('GET', `${VerdictPaths.getThresholds}?projectId=${me.projectId}`)).thresholds,
    ).toMatchObject([{ key: 'build_*', branch: '*', test: 'percentage', upper_boundary: 0.1 }]);
  });

  it('lists the regression it finds as an alert, dismisses it, and re-evaluates', async () => {
    for (const [i, t] of [100, 100, 140].entries()) await ingest(`c${i + 1}`, t);
    await page.goto(seriesPage);
    const alertRow = page.locator('tr:has(button:has-text("Dismiss"))');
    expect(await alertRow.count()).toBe(1);
    expect(await alertRow.locator('td').nth(2).textContent()).toBe('c3');
    await accessible();
    await shoot('dashboard-series');
    await page.click('button:has-text("Dismiss")');
    expect(await notice()).toBe('The alert is dismissed.');
    expect(await page.locator('button:has-text("Re-activate")').count()).toBe(1);

    // Edit the threshold in its row: 50 % lets 140 pass; re-evaluating removes the alert.
    await page.fill('input[aria-label="Upper boundary of threshold build_* on *"]', '0.5');
    await page.click('button:has-text("Save threshold build_* on *")');
    expect(await notice()).toContain('The threshold is saved');
    await page.click('button[type=submit]:text-is("Re-evaluate")');
    expect(await notice()).toContain('The re-evaluation is queued');
    await expect
      .poll(
        async () =>
          (await api('GET', `${VerdictPaths.getAlerts}?projectId=${me.projectId}&status=all`))
            .alerts,
        {
          timeout: 15_000,
        },
      )
      .toEqual([]);
    await page.goto(seriesPage);
    expect(await page.locator('text=No active alerts.').count()).toBe(1);
    expect(await page.locator('text=No dismissed alerts.').count()).toBe(1);
  });

  it('passes axe in the light and the dark scheme', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(seriesPage);
      expect({ colorScheme, violations: await seriousAccessibilityViolations(page) }).toEqual({
        colorScheme,
        violations: [],
      });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it("logged no error or CSP violation on the way, but the refused form's 400", () => {
    // Chromium logs the status of the refused threshold form's answer: that one, nothing else.
    expect(problems).toEqual([
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
  });
});
