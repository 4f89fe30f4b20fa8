import { describe, expect, it } from 'vitest';
import { FormClient } from '../helpers/form-client.js';
import { storeEvent, storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * The build-health bars' time axis and every chart's legend (issue 28): the axis names the
 * range's start, end and the three quarter points between, in UTC; each metric chart says what
 * its lines and band are (median, p95, min–max).
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const DAY = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The axis' ticks as the page gives them: [datetime, label]. */
function ticksOf(body: string): [string, string][] {
  const axis = /<div class="time-axis" data-time-axis="true"[^>]*>(.*?)<\/div>/.exec(body)?.[1];
  expect(axis, 'the time axis').toBeDefined();
  return [...(axis as string).matchAll(/<time datetime="([^"]+)">([^<]+)<\/time>/g)].map((m) => [
    m[1] as string,
    m[2] as string,
  ]);
}

describe('time axis and chart legends', () => {
  it('gives the build-health bars a time axis over the range, by day or by hour', async () => {
    const from = Date.parse('2026-03-02T00:00:00Z');
    await storeEvent(server, me.projectId, from + DAY, 'build', { status: 'success' });
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const week = await browser.get(
      `/dashboard/projects/${me.projectId}?range=custom&from=2026-03-02&to=2026-03-09`,
    );
    expect(week.statusCode).toBe(200);
    // 8 whole days: from the 2nd at 00:00 to the 10th at 00:00, a tick every 2 days.
    const to = from + 8 * DAY;
    const want = [0, 1, 2, 3, 4].map((i) => {
      const at = new Date(from + Math.round((i * (to - from)) / 4));
      return [at.toISOString(), `${MONTHS[at.getUTCMonth()]} ${at.getUTCDate()}`];
    });
    expect(ticksOf(week.body)).toEqual(want);
    expect(want.map((tick) => tick[1])).toEqual(['Mar 2', 'Mar 4', 'Mar 6', 'Mar 8', 'Mar 10']);
    // Under the bars, in the build-health card.
    const health = week.body.slice(week.body.indexOf('health-title'));
    expect(health.indexOf('data-time-axis')).toBeGreaterThan(health.indexOf('</svg>'));

    // A day's range names the hours.
    const day = await browser.get(`/dashboard/projects/${me.projectId}?range=24h`);
    const ticks = ticksOf(day.body);
    expect(ticks).toHaveLength(5);
    for (const [at, label] of ticks) {
      const date = new Date(at);
      expect(label).toBe(`${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()} ${at.slice(11, 16)}`);
    }
    const span = Date.parse(ticks[4]?.[0] as string) - Date.parse(ticks[0]?.[0] as string);
    expect(span).toBeGreaterThanOrEqual(DAY);
  });

  it('puts a legend of median, p95 and min–max under every chart', async () => {
    const now = Date.now();
    for (let i = 1; i <= 4; i++) {
      await storeMetric(server, me.projectId, now - i * 3_600_000, { a_ms: i, b_ms: 10 * i });
    }
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const page = await browser.get(`/dashboard/projects/${me.projectId}?range=7d`);
    const cards = page.body.split('<figure class="card chart-card">').slice(1);
    expect(cards).toHaveLength(2);
    for (const card of cards) {
      const legend = /<ul class="chart-legend" data-chart-legend="true">(.*?)<\/ul>/.exec(card);
      // Its words as read (on a small screen, some only by screen readers).
      const words = legend?.[1]?.replace(/<[^>]+>/g, '');
      expect(words).toBe('median (p50)95th percentile (p95)min–max range');
      expect(card.indexOf('data-chart-legend')).toBeLessThan(card.indexOf('</figure>'));
    }
  });
});
