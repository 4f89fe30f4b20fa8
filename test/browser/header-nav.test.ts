import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import {
  afterAllClose,
  type BrowserPage,
  describeInBrowser,
  signedInPage,
} from '../helpers/browser.js';
import { storeEvent } from '../helpers/seed-records.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width - 0.5 &&
  b.x < a.x + a.width - 0.5 &&
  a.y < b.y + b.height - 0.5 &&
  b.y < a.y + a.height - 0.5;

/**
 * Every signed-in page's header at a phone's width (390 px): each navigation link is whole on
 * the screen, not clipped by its bar (a scrolled-away "Acc…" was the bug) and not covered by
 * the brand, another link or the sign-out button; and the header stays compact (at most 64 px).
 */
describeInBrowser('the dashboard header at 390 px, on every page that has it', () => {
  let server: TestServer;
  let me: TestAccount;
  let url: string;
  let my: BrowserPage;

  beforeAll(async () => {
    server = await startTestServer();
    me = await server.account();
    await storeEvent(server, me.projectId, Date.now() - 3_600_000, 'build', { status: 'success' });
    ({ url, my } = await signedInPage(server, me));
    await my.page.setViewportSize({ width: 390, height: 844 });
  });

  afterAllClose(() => ({ my, server }));

  async function boxesOf(page: Page, selector: string): Promise<Box[]> {
    const found: Box[] = [];
    for (const element of await page.locator(selector).all()) {
      const box = await element.boundingBox();
      if (box) found.push(box);
    }
    return found;
  }

  const paths = () => [
    '/dashboard',
    '/dashboard/site',
    '/dashboard/account',
    '/dashboard/keys',
    '/dashboard/projects',
    `/dashboard/projects/${me.projectId}`,
    `/dashboard/projects/${me.projectId}/tests`,
    `/dashboard/projects/${me.projectId}/series`,
    `/dashboard/projects/${me.projectId}/data`,
    `/dashboard/projects/${me.projectId}/channels`,
  ];

  it('shows every navigation link whole, uncovered, in a header of at most 64 px', async () => {
    for (const path of paths()) {
      const response = await my.page.goto(`${url}${path}`);
      expect(response?.status(), path).toBe(200);
      const links = my.page.locator('.topbar nav a');
      expect(await links.count(), path).toBe(5);
      const nav = (await boxesOf(my.page, '.topbar nav'))[0] as Box;
      const linkBoxes = await boxesOf(my.page, '.topbar nav a');
      expect(linkBoxes.length, path).toBe(5);
      const others = await boxesOf(my.page, '.topbar .brand, .topbar .who button');
      expect(others.length, path).toBe(2);
      for (const [i, box] of linkBoxes.entries()) {
        const label = `${path}: link ${await links.nth(i).textContent()}`;
        // On the screen, and inside its bar (a bar that scrolls sideways clips what overflows).
        expect(box.x, label).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, label).toBeLessThanOrEqual(390);
        expect(box.x, label).toBeGreaterThanOrEqual(nav.x - 0.5);
        expect(box.x + box.width, label).toBeLessThanOrEqual(nav.x + nav.width + 0.5);
        expect(box.y, label).toBeGreaterThanOrEqual(nav.y - 0.5);
        expect(box.y + box.height, label).toBeLessThanOrEqual(nav.y + nav.height + 0.5);
        // Tall enough to tap (WCAG 2.2's 24 px target).
        expect(box.height, label).toBeGreaterThanOrEqual(24);
        for (const [j, other] of linkBoxes.entries()) {
          if (j !== i) expect(overlap(box, other), `${label} overlaps link ${j}`).toBe(false);
        }
        for (const other of others) expect(overlap(box, other), label).toBe(false);
        // What is drawn at the link's corners (inside their 8 px rounding) and centre is the
        // link itself.
        const hits = await my.page.evaluate((b) => {
          const points = [
            [b.x + 4, b.y + 4],
            [b.x + b.width - 4, b.y + 4],
            [b.x + 4, b.y + b.height - 4],
            [b.x + b.width - 4, b.y + b.height - 4],
            [b.x + b.width / 2, b.y + b.height / 2],
          ];
          return points.map(([x, y]) => {
            const hit = document.elementFromPoint(x as number, y as number);
            return Boolean(hit?.closest('.topbar nav a'));
          });
        }, box);
        expect(hits, label).toEqual([true, true, true, true, true]);
      }
      const header = (await boxesOf(my.page, '.topbar'))[0] as Box;
      expect(header.height, path).toBeLessThanOrEqual(64);
      const width = await my.page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, path).toBeLessThanOrEqual(390);
    }
  });
});
