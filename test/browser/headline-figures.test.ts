import { beforeAll, expect, it } from 'vitest';
import {
  afterAllClose,
  type BrowserPage,
  describeInBrowser,
  signedInPage,
} from '../helpers/browser.js';
import { foldStatistics, storeEvent, storeMetric } from '../helpers/seed-records.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Whole seconds as minutes and seconds: what the headline should say (computed here). */
const minutes = (ms: number) => {
  const whole = Math.round(ms / 1000);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
};

/**
 * The headline as a reader sees it in Chromium, at a laptop's and a phone's width: durations in
 * minutes and seconds (not "116,000"), the change and the period before in the same unit, and
 * each figure whole inside its box.
 */
describeInBrowser('the headline in Chromium', () => {
  let server: TestServer;
  let me: TestAccount;
  let url: string;
  let my: BrowserPage;

  beforeAll(async () => {
    server = await startTestServer();
    me = await server.account();
    const now = Date.now();
    // Two weeks of builds, every 6 hours, slower (about 1 min 56 s) in the last 7 days.
    for (let t = now - 14 * DAY + HOUR, i = 0; t < now - HOUR; t += 6 * HOUR, i++) {
      const recent = t >= now - 7 * DAY;
      // Two workflows: a quarter of the runs are Docs'.
      const github = { workflow: i % 4 === 0 ? 'Docs' : 'CI' };
      const status = i % 5 === 0 ? 'failure' : 'success';
      await storeEvent(server, me.projectId, t, 'build', { status, github });
      await storeMetric(server, me.projectId, t, {
        duration_ms: (recent ? 115_000 : 100_000) + (i % 3) * 1000,
        github,
      });
    }
    await foldStatistics(server, Date.now());
    ({ url, my } = await signedInPage(server, me));
  });

  afterAllClose(() => ({ my, server }));

  it('says durations in minutes and seconds, their change in seconds, at 1280 and 390 px', async () => {
    for (const width of [1280, 390]) {
      await my.page.setViewportSize({ width, height: 900 });
      await my.page.goto(`${url}/dashboard/projects/${me.projectId}?range=7d`);
      // The figures of the page's own range and filters, as its CSV link gives them.
      const csv = (await my.page.getAttribute('.headline a.csv-link', 'href')) as string;
      const rows = (await my.page.evaluate(
        async (href) => (await fetch(href)).text(),
        csv,
      )) as string;
      const cells = rows
        .split('\r\n')
        .find((line) => line.startsWith('duration_p50,'))
        ?.split(',') as string[];
      const p50 = { value: Number(cells[1]), previous: Number(cells[2]) };
      expect(cells[5]).toBe('ms');
      const figure = my.page.locator('[data-figure="duration_p50"]');
      expect(await figure.locator('.stat-value').innerText()).toBe(minutes(p50.value));
      const change = await figure.locator('[data-change]').innerText();
      // Under a minute: seconds to 3 significant digits.
      const delta = Number(((p50.value - p50.previous) / 1000).toPrecision(3));
      expect(change).toContain(`▲ ${delta} s`);
      expect(change).toContain(`(before: ${minutes(p50.previous)})`);
      for (const id of ['duration_p50', 'duration_p95']) {
        const text = await my.page.locator(`[data-figure="${id}"] .stat-value`).innerText();
        expect(text, `${id} at ${width}`).toMatch(/^\d+ min \d+ s$/);
        // Whole inside its box: not cut off or spilling over the next figure.
        const spill = await my.page
          .locator(`[data-figure="${id}"] .stat-value`)
          .evaluate((el) => el.scrollWidth - el.clientWidth);
        expect(spill, `${id} at ${width}`).toBeLessThanOrEqual(0);
      }
      // Two figures a row on a phone: the six fit the first screen with the filters.
      const [first, second] = await Promise.all(
        ['builds', 'success_rate'].map((id) =>
          my.page.locator(`[data-figure="${id}"]`).boundingBox(),
        ),
      );
      expect(second?.y, `the figures' rows at ${width}`).toBe(first?.y);
    }
  });

  it('filters the headline and build health to a workflow clicked in the table', async () => {
    await my.page.setViewportSize({ width: 1280, height: 900 });
    await my.page.goto(`${url}/dashboard/projects/${me.projectId}?range=7d`);
    // The table counts the raw records; the filtered page reads the workflow cells.
    const runs = Number(
      await my.page.getAttribute('tr[data-workflow="Docs"] td:nth-child(2)', 'data-value'),
    );
    const all = Number(
      await my.page.getAttribute('[data-figure="builds"] .stat-value', 'data-value'),
    );
    expect(runs).toBeGreaterThan(0);
    expect(runs).toBeLessThan(all);
    await Promise.all([
      my.page.waitForURL(/workflow=Docs/),
      my.page.click('tr[data-workflow="Docs"] a'),
    ]);
    expect(await my.page.locator('[data-headline-workflow]').isVisible()).toBe(true);
    expect(
      Number(await my.page.getAttribute('[data-figure="builds"] .stat-value', 'data-value')),
    ).toBe(runs);
    const bars = await my.page.locator('.health-bars').getAttribute('aria-label');
    const counted = [...(bars ?? '').matchAll(/(\d+) (success|failure|cancelled|other)/g)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    expect(counted).toBe(runs);
    // And back to every workflow.
    await my.page.click('[data-headline-workflow] a');
    expect(
      Number(await my.page.getAttribute('[data-figure="builds"] .stat-value', 'data-value')),
    ).toBe(all);
  });
});
