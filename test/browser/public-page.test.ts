import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { THEMES } from '../../server/domain/themes.js';
import {
  accessibilityViolations,
  describeInBrowser,
  launchBrowser,
  watchProblems,
} from '../helpers/browser.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** The avatar, served from 127.0.0.1 (the machine has no outside network). */
const AVATAR_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="192" height="192" viewBox="0 0 192 192"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#7c3aed"/><stop offset="1" stop-color="#0ea5e9"/></linearGradient></defs><rect width="192" height="192" fill="url(#g)"/><text x="96" y="118" font-family="sans-serif" font-size="72" font-weight="700" fill="#fff" text-anchor="middle">AL</text></svg>`;

/** Set SCREENSHOTS_DIR to refresh the docs' screenshots (docs/screenshots). */
const SCREENSHOTS_DIR = process.env.SCREENSHOTS_DIR;

describeInBrowser('the public page in Chromium', () => {
  let server: TestServer;
  let me: TestAccount;
  let url: string;
  let images: Server;
  let browser: Browser;

  beforeAll(async () => {
    images = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(AVATAR_SVG),
    );
    images.listen(0, '127.0.0.1');
    await once(images, 'listening');
    const avatar = `http://127.0.0.1:${(images.address() as AddressInfo).port}/avatar.svg`;

    server = await startTestServer();
    me = await server.account();
    const post = (path: string, body?: unknown) =>
      server.call('POST', path, { key: me.apiKey, ...(body === undefined ? {} : { body }) });
    await post('/account/update-display-name', { display_name: 'ada-lovelace' });
    await post('/email-forwarding/email-forwarding-toggle', {
      enabled: true,
      email: 'ada@example.org',
    });
    await post('/pagesite/update-site-configuration', {
      bio: 'Writes programs for engines that do not exist yet.\nNotes on the Analytical Engine, 1843.',
      avatar_url: avatar,
      location: 'London',
      mood: 'curious',
      blocks: [
        { type: 'text', content: 'Currently: porting Note G to a modern language.' },
        { type: 'link', content: 'https://example.com/notes/analytical-engine' },
        { type: 'link', content: 'https://github.com/ada' },
      ],
    });
    await post('/pagesite/toggle-site-visibility');
    url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    if (SCREENSHOTS_DIR) mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    images?.close();
  });

  it.each(THEMES.map((theme) => [theme.id]))(
    'theme %s renders with no console error, no CSP violation, no axe finding of any impact',
    async (themeId) => {
      await server.call('POST', '/pagesite/update-site-configuration', {
        key: me.apiKey,
        body: { theme_id: themeId },
      });

      // As a visitor gets it: our CSP enforced.
      const visitor = await browser.newContext({ viewport: { width: 900, height: 900 } });
      const page = await visitor.newPage();
      const problems = watchProblems(page);
      const response = await page.goto(`${url}/@ada-lovelace`);
      expect(response?.status()).toBe(200);
      await page.waitForLoadState('networkidle');
      expect(await page.locator('h1').textContent()).toBe('ada-lovelace');
      // The avatar loaded, and takes the size the markup reserved for it (no layout shift).
      const avatar = page.locator('img.avatar');
      expect(await avatar.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(192);
      expect(await avatar.boundingBox()).toMatchObject({ width: 96, height: 96 });
      // The stylesheet applied: the background is the theme's.
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).not.toBe('rgba(0, 0, 0, 0)');
      expect(await page.locator('script').count()).toBe(0);
      expect(await page.locator('a[href^="mailto:"]').textContent()).toBe(
        'ada-lovelace@mail.example.test',
      );
      if (SCREENSHOTS_DIR && (themeId === 'paper' || themeId === 'midnight')) {
        await page.screenshot({ path: join(SCREENSHOTS_DIR, `public-page-${themeId}.png`) });
      }
      expect(problems).toEqual([]);
      await visitor.close();

      // axe-core needs its script injected, which the CSP refuses: a context that bypasses it.
      // The page follows its owner's theme, not the system's scheme: both widths, one scheme.
      for (const width of [1280, 390]) {
        const auditor = await browser.newContext({
          bypassCSP: true,
          viewport: { width, height: 900 },
        });
        const audited = await auditor.newPage();
        await audited.goto(`${url}/@ada-lovelace`);
        expect(await accessibilityViolations(audited), `${themeId} at ${width} px`).toEqual([]);
        await auditor.close();
      }
    },
    // Three page loads and two axe-core runs: up to 20 s with three test files at once on a quiet
    // 2-core machine, and about twice that at CI's load (the 30 s default failed a sibling there).
    60_000,
  );

  // One test per width and scheme: four axe-core runs in one test ran past its 30 s on a loaded
  // CI machine.
  for (const width of [1280, 390]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`the 404 page is a clear page, also free of console errors and of axe findings of any impact (${width} px, ${colorScheme})`, async () => {
        const context = await browser.newContext({
          bypassCSP: true,
          viewport: { width, height: 900 },
          colorScheme,
        });
        try {
          const page = await context.newPage();
          const response = await page.goto(`${url}/@nobody-here`);
          expect(response?.status()).toBe(404);
          expect(await page.locator('h1').textContent()).toBe('Page not found');
          expect(await accessibilityViolations(page), `${width} px, ${colorScheme}`).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  }

  it('the CSP holds: an injected inline script does not run', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${url}/@ada-lovelace`);
    await page
      .evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'document.title = "pwned"';
        document.head.append(script);
      })
      .catch(() => undefined);
    expect(await page.title()).toBe('ada-lovelace');
    expect(problems.join('\n')).toMatch(/Content Security Policy/);
    await context.close();
  });
});
