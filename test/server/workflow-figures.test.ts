import { describe, expect, it } from 'vitest';
import { FormClient } from '../helpers/form-client.js';
import { foldStatistics, seededRandom, storeEvent, storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * The project page filtered to one workflow or CI job (`?workflow=`, issue 28's "filters the
 * page when clicked"): the headline's builds, success rate, median and p95 duration (and the
 * period before), the build-health bars and the charts, read from the workflow cells, checked
 * against figures computed here from the raw records seeded; before and after the fold.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TO = Date.parse('2026-03-09T00:00:00Z');
const FROM = TO - 7 * DAY;
const BEFORE = FROM - 7 * DAY;

interface Run {
  at: number;
  workflow: string | null;
  status: string;
  branch: string;
  duration: number;
}

/** Nearest rank: x[⌈q·n⌉ − 1] of the values in ascending order. */
const rank = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(q * sorted.length) - 1] as number;
};
/** Within the sketch's 2 %. */
const near = (got: number, want: number) =>
  expect(Math.abs(got - want)).toBeLessThanOrEqual(Math.abs(want) * 0.02 + 1e-9);

/** Runs of three workflows (GitHub's, and another CI's job) and of none, over both periods. */
async function seed(): Promise<Run[]> {
  const random = seededRandom(31);
  const times = Array.from({ length: 90 }, () => BEFORE + Math.floor(random() * 14 * DAY)).sort(
    (a, b) => a - b,
  );
  const runs: Run[] = [];
  for (const at of times) {
    const pick = random();
    const workflow = pick < 0.45 ? 'CI' : pick < 0.7 ? 'Release' : pick < 0.9 ? 'lint' : null;
    const status = random() < 0.25 ? 'failure' : random() < 0.1 ? 'cancelled' : 'success';
    const branch = random() < 0.7 ? 'main' : 'feature';
    // CI is slower this week; each workflow has its own durations.
    const base = workflow === 'CI' ? (at >= FROM ? 120_000 : 100_000) : 30_000;
    const duration = Math.round(base + random() * 40_000);
    runs.push({ at, workflow, status, branch, duration });
    // The Action's github.workflow for two of them; the CLI's ci.job for lint.
    const context =
      workflow === 'lint'
        ? { ci: { branch, job: 'lint' } }
        : {
            ci: { branch },
            ...(workflow === null ? {} : { github: { workflow, ref: `refs/heads/${branch}` } }),
          };
    await storeEvent(server, me.projectId, at, 'build', { status, ...context });
    await storeMetric(server, me.projectId, at, { duration_ms: duration, ...context });
  }
  return runs;
}

/** The figures of one workflow's runs in [from, to) (and on `branch`), computed here. */
function figuresOf(runs: Run[], workflow: string, from: number, to: number, branch?: string) {
  const of = runs.filter(
    (r) =>
      r.workflow === workflow &&
      r.at >= from &&
      r.at < to &&
      (branch === undefined || r.branch === branch),
  );
  const success = of.filter((r) => r.status === 'success').length;
  const failure = of.filter((r) => r.status === 'failure').length;
  const durations = of.map((r) => r.duration);
  return {
    runs: of,
    builds: of.length,
    rate: success + failure === 0 ? null : success / (success + failure),
    p50: durations.length === 0 ? null : rank(durations, 0.5),
    p95: durations.length === 0 ? null : rank(durations, 0.95),
  };
}

describe('the project page filtered to one workflow', () => {
  it('reads the headline, build health and charts of that workflow only', async () => {
    const runs = await seed();
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const from = new Date(FROM).toISOString().slice(0, 10);
    const to = new Date(TO - 1).toISOString().slice(0, 10);
    const page = `/dashboard/projects/${me.projectId}?range=custom&from=${from}&to=${to}`;

    const csvRows = async (href: string) => {
      const res = await browser.get(href);
      expect(res.statusCode, res.body).toBe(200);
      const [head, ...rows] = res.body
        .trimEnd()
        .split('\r\n')
        .map((line) => line.split(','));
      return rows.map((row) => Object.fromEntries((head as string[]).map((h, i) => [h, row[i]])));
    };

    const check = async (workflow: string, branch?: string) => {
      const query = `&workflow=${encodeURIComponent(workflow)}${branch ? `&branch=${branch}` : ''}`;
      const res = await browser.get(`${page}${query}`);
      expect(res.statusCode).toBe(200);
      const now = figuresOf(runs, workflow, FROM, TO, branch);
      const then = figuresOf(runs, workflow, BEFORE, FROM, branch);
      const label = `${workflow} ${branch ?? 'all branches'}`;
      expect(now.builds, label).toBeGreaterThan(2);
      expect(res.body).toContain('data-headline-workflow');

      // The headline, as the page shows it and as its CSV gives it (with the period before).
      const value = (id: string) =>
        new RegExp(
          `data-figure="${id}"><dt[^>]*>[^<]*</dt><dd class="stat-value" data-value="([^"]*)"`,
        ).exec(res.body)?.[1];
      expect(Number(value('builds')), label).toBe(now.builds);
      const headline = await csvRows(
        `/dashboard/projects/${me.projectId}/export.csv?table=headline&range=custom&from=${from}&to=${to}${query}`,
      );
      const row = (figure: string) => headline.find((r) => r.figure === figure) ?? {};
      expect(Number(row('builds').value), label).toBe(now.builds);
      expect(Number(row('builds').previous), label).toBe(then.builds);
      expect(Number(row('success_rate').value)).toBeCloseTo(now.rate as number, 12);
      expect(Number(row('success_rate').previous)).toBeCloseTo(then.rate as number, 12);
      near(Number(row('duration_p50').value), now.p50 as number);
      near(Number(row('duration_p95').value), now.p95 as number);
      near(Number(row('duration_p50').previous), then.p50 as number);
      near(Number(row('duration_p95').previous), then.p95 as number);

      // Build health: each bar's counts, by hour.
      const bars = [
        ...res.body.matchAll(
          /<title>(\d{4}-\d\d-\d\d \d\d:\d\d) UTC: (\d+) success, (\d+) failure, (\d+) cancelled, (\d+) other<\/title>/g,
        ),
      ];
      const byHour = new Map<number, number[]>();
      for (const run of now.runs) {
        const hour = Math.floor(run.at / HOUR) * HOUR;
        const counts = byHour.get(hour) ?? [0, 0, 0, 0];
        const column = ['success', 'failure', 'cancelled'].indexOf(run.status);
        counts[column] = (counts[column] ?? 0) + 1;
        byHour.set(hour, counts);
      }
      const shown = new Map(
        bars
          .map(
            (m) =>
              [
                Date.parse(`${(m[1] as string).replace(' ', 'T')}:00Z`),
                m.slice(2, 6).map(Number),
              ] as const,
          )
          .filter(([, counts]) => counts.some((c) => c > 0)),
      );
      expect(shown, label).toEqual(byHour);

      // The duration chart: its buckets' counts and medians, as its CSV gives them.
      const buckets = await csvRows(
        `/dashboard/projects/${me.projectId}/export.csv?table=chart&key=duration_ms&range=custom&from=${from}&to=${to}${query}`,
      );
      expect(
        buckets.reduce((n, b) => n + Number(b.count), 0),
        label,
      ).toBe(now.runs.length);
      for (const bucket of buckets) {
        const start = Date.parse(bucket.start as string);
        const end = Date.parse(bucket.end as string);
        const values = now.runs.filter((r) => r.at >= start && r.at < end).map((r) => r.duration);
        expect(Number(bucket.count)).toBe(values.length);
        near(Number(bucket.p50), rank(values, 0.5));
        expect(Number(bucket.max)).toBe(Math.max(...values));
      }
    };
    // From the records not folded yet (SQLite folds at the next store), then from the cells.
    await check('CI');
    await foldStatistics(server, Date.now());
    await check('CI');
    await check('CI', 'main');
    await check('lint');
    await check('Release', 'feature');
    await check('Release');

    // Without the filter the figures are of every run, workflow or not.
    const all = await csvRows(
      `/dashboard/projects/${me.projectId}/export.csv?table=headline&range=custom&from=${from}&to=${to}`,
    );
    expect(Number(all.find((r) => r.figure === 'builds')?.value)).toBe(
      runs.filter((r) => r.at >= FROM && r.at < TO).length,
    );
  });

  it('cuts the 24-hour range into whole hours for a workflow', async () => {
    const now = Date.now();
    for (let i = 1; i <= 6; i++) {
      await storeEvent(server, me.projectId, now - i * 50 * 60_000, 'build', {
        status: 'success',
        github: { workflow: 'CI' },
      });
    }
    await foldStatistics(server, Date.now());
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const res = await browser.get(`/dashboard/projects/${me.projectId}?range=24h&workflow=CI`);
    expect(res.statusCode).toBe(200);
    const bars = [...res.body.matchAll(/<title>\d{4}-\d\d-\d\d \d\d:(\d\d) UTC: (\d+) success/g)];
    expect(bars.length).toBeGreaterThan(0);
    for (const bar of bars) expect(bar[1]).toBe('00');
    expect(bars.reduce((n, m) => n + Number(m[2]), 0)).toBe(6);
    expect(res.body).toMatch(
      /data-figure="builds"><dt[^>]*>[^<]*<\/dt><dd class="stat-value" data-value="6"/,
    );
  });
});
