import { beforeAll, expect, it } from 'vitest';
import { newRecordId } from '../../server/domain/ids.js';
import {
  afterAllClose,
  type BrowserPage,
  describeInBrowser,
  drawAllCharts,
  seriousAccessibilityViolations,
  signedInPage,
} from '../helpers/browser.js';
import { foldStatistics, storeEvent, storeMetric } from '../helpers/seed-records.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Marks on the charts in Chromium (issue 28): each release, deploy, alert and change point is a
 * thin line at its time's place on the x axis (the share of the range it lies at, across the
 * plot), on the right charts, kept in place on a zoom, with a tooltip.
 */

const HOUR = 3_600_000;

describeInBrowser('marks on the project page’s charts in Chromium', () => {
  let server: TestServer;
  let me: TestAccount;
  let url: string;
  let my: BrowserPage;
  const now = Date.now();
  const release = now - 100 * HOUR - 1000;
  const alertAt = now - 40 * HOUR;

  beforeAll(async () => {
    server = await startTestServer();
    me = await server.account();
    for (let t = now - 160 * HOUR; t < now - HOUR; t += 4 * HOUR) {
      await storeEvent(server, me.projectId, t, 'build', { status: 'success' });
      if (t < release && t + 4 * HOUR > release) {
        await storeEvent(server, me.projectId, release, 'release', {
          version: 'v2.0.0',
          github: { sha: 'aaaabbbbccccdddd' },
        });
      }
      await storeMetric(server, me.projectId, t, { duration_ms: 60_000 + (t % 7) * 1000, size: 5 });
    }
    await server.app.storage.verdicts.createAlert({
      id: newRecordId(),
      projectId: me.projectId,
      key: 'size',
      branch: null,
      recordId: newRecordId(),
      commit: null,
      value: 9,
      baseline: 5,
      limit: 6,
      side: 'upper',
      test: 'percentage',
      createdAt: alertAt,
    });
    await foldStatistics(server, now);
    ({ url, my } = await signedInPage(server, me));
  });

  afterAllClose(() => ({ my, server }));

  /** Each mark of a chart: its kind, time (s), tooltip, and x centre from the plot's left edge. */
  const marksOf = (key: string) =>
    my.page.$eval(`.chart[data-key="${key}"]`, (chart) => {
      const over = chart.querySelector('.u-over') as HTMLElement;
      const left = over.getBoundingClientRect().left;
      return {
        width: over.getBoundingClientRect().width,
        marks: [...over.querySelectorAll<HTMLElement>('.chart-mark')]
          .filter((node) => !node.hidden)
          .map((node) => {
            const box = node.getBoundingClientRect();
            return {
              kind: node.className.replace('chart-mark mark-', ''),
              at: Number(node.getAttribute('data-at')),
              title: node.getAttribute('title'),
              x: box.left + box.width / 2 - left,
            };
          }),
      };
    });

  it('draws each mark at its time, on the charts it belongs to, with a tooltip', async () => {
    await my.page.goto(`${url}/dashboard/projects/${me.projectId}?range=7d`);
    await drawAllCharts(my.page);
    const { from, to } = JSON.parse((await my.page.textContent('#chart-data')) as string) as {
      from: number;
      to: number;
    };
    const at = (t: number, width: number) => ((t - from) / (to - from)) * width;

    // The duration chart is first (the build-duration key); the size chart, with its alert, first of all.
    expect(
      await my.page.$$eval('.chart[data-key]', (nodes) =>
        nodes.map((n) => n.getAttribute('data-key')),
      ),
    ).toEqual(['size', 'duration_ms']);

    const duration = await marksOf('duration_ms');
    expect(duration.marks.map((m) => [m.kind, m.at])).toEqual([['release', release / 1000]]);
    expect(Math.abs((duration.marks[0]?.x ?? -1) - at(release, duration.width))).toBeLessThan(1.5);
    expect(duration.marks[0]?.title).toMatch(
      /^release v2\.0\.0 · \d{4}-\d\d-\d\d \d\d:\d\d UTC · commit aaaabbbbcccc$/,
    );

    const size = await marksOf('size');
    expect(size.marks.map((m) => m.kind)).toEqual(['release', 'alert']);
    expect(Math.abs((size.marks[1]?.x ?? -1) - at(alertAt, size.width))).toBeLessThan(1.5);
    expect(await seriousAccessibilityViolations(my.page)).toEqual([]);
    expect(my.problems).toEqual([]);
  });

  it('keeps the marks at their times after a zoom, and hides those outside it', async () => {
    await my.page.goto(`${url}/dashboard/projects/${me.projectId}?range=7d`);
    await drawAllCharts(my.page);
    const chart = my.page.locator('.chart[data-key="size"]');
    await chart.scrollIntoViewIfNeeded();
    const box = await chart.locator('.u-over').boundingBox();
    if (!box) throw new Error('no chart');
    const before = await chart.getAttribute('data-x-range');
    // Drag over the release's part of the range (about 40 % into the week), roughly 30 % to 60 %:
    // the alert (about 76 % in) falls outside.
    await my.page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
    await my.page.mouse.down();
    await my.page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
    await my.page.mouse.up();
    await expect.poll(() => chart.getAttribute('data-x-range')).not.toBe(before);
    // The zoomed scale, as the chart reports it, gives where the release must now be.
    const { min, max } = await my.page.$eval('.chart[data-key="size"]', (node) => {
      const [a, b] = (node.getAttribute('data-x-range') as string).split(' – ');
      return {
        min: Date.parse(`${a?.replace(' UTC', '')}Z`),
        max: Date.parse(`${b?.replace(' UTC', '')}Z`),
      };
    });
    const { marks, width } = await marksOf('size');
    expect(marks.map((m) => m.kind)).toEqual(['release']);
    // data-x-range is to the minute: within a minute's share of the zoomed width.
    const tolerance = (60_000 / (max - min)) * width + 1.5;
    expect(Math.abs((marks[0]?.x ?? -1) - ((release - min) / (max - min)) * width)).toBeLessThan(
      tolerance,
    );
    // The other chart keeps its own scale and marks.
    expect((await marksOf('duration_ms')).marks.map((m) => m.kind)).toEqual(['release']);
  });

  it('sorts the table by event type by a column, and its rows filter the page', async () => {
    await my.page.goto(`${url}/dashboard/projects/${me.projectId}?range=7d`);
    const order = () =>
      my.page.$$eval('table[data-sortable] tbody tr', (rows) =>
        rows.map((row) => row.getAttribute('data-event-type')),
      );
    // Most runs first, as served.
    expect(await order()).toEqual(['build', 'release']);
    const sortBy = (name: string) =>
      my.page.click(`table[data-sortable] th button.sort:text-is("${name}")`);
    await sortBy('Runs');
    expect(await order()).toEqual(['release', 'build']);
    expect(await my.page.getAttribute('table[data-sortable] th:nth-child(2)', 'aria-sort')).toBe(
      'ascending',
    );
    await sortBy('Event type');
    expect(await order()).toEqual(['build', 'release']);
    await sortBy('Event type');
    expect(await order()).toEqual(['release', 'build']);
    await my.page.click('table[data-sortable] tr[data-event-type="release"] a');
    await my.page.waitForURL(/type=release/);
    expect(await my.page.locator('.timeline li strong').allTextContents()).toEqual(['release']);
    expect(await seriousAccessibilityViolations(my.page)).toEqual([]);
  });
});
