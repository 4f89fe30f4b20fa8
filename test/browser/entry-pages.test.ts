import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  AUDIT_SCHEMES,
  AUDIT_WIDTHS,
  accessibilityViolations,
  auditContext,
  describeInBrowser,
  launchBrowser,
  watchProblems,
} from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 28's "axe-core: no violation on every page", for the pages anyone reaches first without
 * signing in: the landing page, /docs, a docs page and the API reference, the dashboard's
 * sign-in page, the 404 page and the 429 page (a share link asked for too often: one share page
 * a minute, no burst). At 1280 and 390 px, light and dark; axe-core at every impact, nothing
 * wider than the viewport, nothing said by the page but the status of a 404 or 429.
 */

describeInBrowser('the entry pages in Chromium', () => {
  let server: TestServer;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer({ SHARE_RATE_PER_MINUTE: '1', SHARE_BURST: '1' });
    url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const pages: [string, string, number][] = [
    ['landing', '/', 200],
    ['docs', '/docs', 200],
    ['docs page', '/docs/pages', 200],
    ['API reference', '/docs/api/reference', 200],
    ['sign-in', '/dashboard/sign-in', 200],
    ['404', '/no-such-page', 404],
  ];

  /** One page in a fresh context; the 429 page is the second asking of a share token. */
  const check = async (width: number, scheme: 'light' | 'dark', name: string) => {
    const context = await auditContext(browser, width, scheme);
    try {
      const busy = `/share/busy-${width}-${scheme}`;
      const asked: [string, number][] =
        name === '429'
          ? // The first asking of this token is answered (404: no such link), the next refused.
            [
              [busy, 404],
              [busy, 429],
            ]
          : pages.filter(([n]) => n === name).map(([, path, status]) => [path, status]);
      for (const [path, status] of asked) {
        const page = await context.newPage();
        const problems = watchProblems(page);
        const response = await page.goto(`${url}${path}`);
        expect(response?.status(), name).toBe(status);
        expect(await accessibilityViolations(page), `${name} at ${width} px, ${scheme}`).toEqual(
          [],
        );
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(wide, `${name} is no wider than the viewport`).toBeLessThanOrEqual(width);
        // Chromium logs the status of a 404 or 429 answer; nothing else is said.
        expect(
          problems.filter((p) => !/^Failed to load resource: .* (404|429)/.test(p)),
          name,
        ).toEqual([]);
        await page.close();
      }
    } finally {
      await context.close();
    }
  };

  for (const width of AUDIT_WIDTHS) {
    for (const scheme of AUDIT_SCHEMES) {
      for (const name of [...pages.map(([n]) => n), '429']) {
        it(`${name}: no axe violation, no overflow at ${width} px, ${scheme}`, () =>
          check(width, scheme, name));
      }
    }
  }
});
