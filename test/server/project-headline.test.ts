import { describe, expect, it } from 'vitest';
import { type Headline, ProjectPagePaths } from '../../contract/project-page.js';
import type { TestCase } from '../../contract/tests/ingest-tests.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { newRecordId } from '../../server/domain/ids.js';
import { resultsOf } from '../../server/domain/tests/test-batch.js';
import { FormClient } from '../helpers/form-client.js';
import { foldStatistics, seededRandom, storeEvent, storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * The project page's headline (issue 28): each figure over a range and over the period of the
 * same length before it, checked against values computed here from what was seeded, on the
 * cells and on records not folded yet; the build-duration key set through the API and the page.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const DAY = 86_400_000;
// A week in the past and the week before it, away from "now" so nothing else falls in them.
const TO = Date.parse('2026-03-09T00:00:00Z');
const FROM = TO - 7 * DAY;
const BEFORE = FROM - 7 * DAY;

/** Nearest rank: x[⌈q·n⌉ − 1] of the values in ascending order (the documented definition). */
const rank = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(q * sorted.length) - 1] as number;
};
const near = (got: number | null, want: number) => {
  expect(got).not.toBeNull();
  expect(Math.abs((got as number) - want)).toBeLessThanOrEqual(Math.abs(want) * 0.02 + 1e-9);
};

async function headline(query: Record<string, string> = {}): Promise<Headline> {
  const params = new URLSearchParams({
    projectId: me.projectId,
    from: new Date(FROM).toISOString(),
    to: new Date(TO).toISOString(),
    ...query,
  });
  const res = await server.call('GET', `${ProjectPagePaths.getHeadline}?${params}`, {
    key: me.apiKey,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Headline;
}

interface Seeded {
  statuses: { at: number; status: string | null; branch: string }[];
  durations: { at: number; value: number; branch: string }[];
}

/** Events and duration metrics spread over both periods, on two branches. */
async function seed(): Promise<Seeded> {
  const random = seededRandom(28);
  const statuses: Seeded['statuses'] = [];
  const durations: Seeded['durations'] = [];
  const pick = ['success', 'success', 'failure', 'cancelled', null] as const;
  // Stored in time order, as the server stores records (their times never go backwards).
  const times = Array.from({ length: 60 }, () => BEFORE + Math.floor(random() * 14 * DAY)).sort(
    (a, b) => a - b,
  );
  for (const at of times) {
    const status = pick[Math.floor(random() * pick.length)] ?? null;
    const branch = random() < 0.7 ? 'main' : 'feature';
    statuses.push({ at, status, branch });
    await storeEvent(server, me.projectId, at, status === null ? 'deploy' : 'build', {
      ...(status === null ? {} : { status }),
      ci: { branch },
    });
    // Slower in the recent week: the change is an increase.
    const value = Math.round((at >= FROM ? 9000 : 6000) + random() * 3000);
    const seconds = value / 1000;
    durations.push({ at, value, branch });
    await storeMetric(server, me.projectId, at, {
      duration_ms: value,
      build: { seconds },
      ci: { branch },
    });
  }
  // No regression verdicts of their own: the alerts are the ones stored below.
  await server.call('POST', VerdictPaths.updateProject, {
    key: me.apiKey,
    body: { projectId: me.projectId, default_threshold: false },
  });
  return { statuses, durations };
}

function expected(seeded: Seeded, from: number, to: number, branch?: string) {
  const inside = <T extends { at: number; branch: string }>(rows: T[]) =>
    rows.filter((r) => r.at >= from && r.at < to && (branch === undefined || r.branch === branch));
  const events = inside(seeded.statuses);
  const success = events.filter((e) => e.status === 'success').length;
  const failure = events.filter((e) => e.status === 'failure').length;
  const values = inside(seeded.durations).map((d) => d.value);
  return {
    builds: events.length,
    rate: success + failure === 0 ? null : success / (success + failure),
    values,
  };
}

async function storeAlert(at: number, branch: string, status: 'active' | 'dismissed') {
  const id = newRecordId();
  await server.app.storage.verdicts.createAlert({
    id,
    projectId: me.projectId,
    key: 'duration_ms',
    branch,
    recordId: newRecordId(),
    commit: null,
    value: 12_000,
    baseline: 9000,
    limit: 10_000,
    side: 'upper',
    test: 'percentage',
    createdAt: at,
  });
  if (status === 'dismissed') await server.app.storage.verdicts.setAlertStatus(id, 'dismissed');
}

/** A test run at `at` on main: `flaky` tests passed on their second attempt, `steady` at once. */
async function storeRun(at: number, flaky: string[], steady: string[]) {
  const cases: TestCase[] = [
    ...flaky.map((name) => ({
      suite: 's',
      name,
      status: 'passed' as const,
      duration_ms: 5,
      attempts: 2,
    })),
    ...steady.map((name) => ({ suite: 's', name, status: 'passed' as const, duration_ms: 5 })),
  ];
  const buildId = newRecordId();
  await server.app.storage.tests.ingest({
    run: {
      projectId: me.projectId,
      key: buildId,
      buildId,
      attempt: 1,
      commit: buildId,
      branch: 'main',
      pullRequest: null,
      eventId: null,
    },
    results: resultsOf(cases),
    at,
  });
}

describe('the headline', () => {
  it('gives each figure over the range and the period before, from cells and from records', async () => {
    const seeded = await seed();
    await storeAlert(FROM + DAY, 'main', 'active');
    await storeAlert(FROM + 2 * DAY, 'feature', 'active');
    await storeAlert(FROM + 3 * DAY, 'main', 'dismissed');
    await storeAlert(BEFORE + DAY, 'main', 'active');
    await storeRun(FROM + DAY, ['a', 'b'], ['c']);
    await storeRun(FROM + 2 * DAY, ['b'], ['a', 'c']);
    await storeRun(BEFORE + DAY, ['c'], ['a', 'b']);

    const check = async (branch?: string) => {
      const got = await headline(branch === undefined ? {} : { branch });
      const now = expected(seeded, FROM, TO, branch);
      const then = expected(seeded, BEFORE, FROM, branch);
      expect(got.previous_from).toBe(new Date(BEFORE).toISOString());
      expect(got.previous_to).toBe(new Date(FROM).toISOString());
      expect(got.builds).toEqual({
        value: now.builds,
        previous: then.builds,
        direction: null,
        unit: null,
      });
      expect(got.success_rate.value).toBeCloseTo(now.rate as number, 12);
      expect(got.success_rate.previous).toBeCloseTo(then.rate as number, 12);
      expect(got.success_rate.direction).toBe('higher');
      expect(got.duration_key).toBe('duration_ms');
      expect(got.duration_key_set).toBe(false);
      near(got.duration_p50.value, rank(now.values, 0.5));
      near(got.duration_p95.value, rank(now.values, 0.95));
      near(got.duration_p50.previous, rank(then.values, 0.5));
      near(got.duration_p95.previous, rank(then.values, 0.95));
      expect(got.duration_p50.direction).toBe('lower');
      // Active alerts raised in each period (the dismissed one is not counted).
      expect(got.active_alerts).toMatchObject(
        branch === 'main' ? { value: 1, previous: 1 } : { value: 2, previous: 1 },
      );
      expect(got.active_alerts.direction).toBe('lower');
      // a and b passed on retry this week, c the week before.
      expect(got.flaky_tests).toMatchObject({ value: 2, previous: 1, direction: 'lower' });
    };
    // Read from the records (not folded yet on SQLite), then from the cells.
    await check();
    await foldStatistics(server, Date.now());
    await check();
    await check('main');
  });

  it('reads durations from the key the owner names, through the API and on the page', async () => {
    const seeded = await seed();
    const set = await server.call('POST', ProjectPagePaths.updateDurationKey, {
      key: me.apiKey,
      body: { projectId: me.projectId, duration_key: 'build.seconds' },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({
      projectId: me.projectId,
      duration_key: 'build.seconds',
      duration_key_set: true,
    });
    const got = await headline();
    const seconds = expected(seeded, FROM, TO).values.map((v) => v / 1000);
    expect(got.duration_key).toBe('build.seconds');
    near(got.duration_p50.value, rank(seconds, 0.5));

    // Bad input changes nothing.
    for (const body of [
      { projectId: me.projectId, duration_key: '' },
      { projectId: me.projectId, duration_key: 'x'.repeat(201) },
      { projectId: me.projectId },
    ]) {
      const bad = await server.call('POST', ProjectPagePaths.updateDurationKey, {
        key: me.apiKey,
        body,
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error: 'duration_key is invalid.' });
    }
    const other = await server.account();
    const foreign = await server.call('POST', ProjectPagePaths.updateDurationKey, {
      key: other.apiKey,
      body: { projectId: me.projectId, duration_key: 'stolen' },
    });
    expect(foreign.statusCode).toBe(403);
    expect((await headline()).duration_key).toBe('build.seconds');

    // The page's form: back to the default with an empty key.
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const before = await browser.get(`/dashboard/projects/${me.projectId}`);
    expect(before.body).toContain('<code>build.seconds</code>');
    const cleared = await browser.post(`/dashboard/projects/${me.projectId}/duration-key`, {
      duration_key: '',
    });
    expect(cleared.statusCode).toBe(303);
    expect((await headline()).duration_key_set).toBe(false);
    expect((await headline()).duration_key).toBe('duration_ms');
    const foreignPage = await browser.post(`/dashboard/projects/${other.projectId}/duration-key`, {
      duration_key: 'x',
    });
    expect(foreignPage.statusCode).toBe(404);
    const csrfLess = await browser.post(
      `/dashboard/projects/${me.projectId}/duration-key`,
      { duration_key: 'y' },
      { csrf: null },
    );
    expect(csrfLess.statusCode).toBe(403);
    expect((await headline()).duration_key_set).toBe(false);
  });

  it('shows the figures and their change at the top of the page, coloured by direction', async () => {
    const seeded = await seed();
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const from = new Date(FROM).toISOString().slice(0, 10);
    const to = new Date(TO - 1).toISOString().slice(0, 10);
    const res = await browser.get(
      `/dashboard/projects/${me.projectId}?range=custom&from=${from}&to=${to}`,
    );
    expect(res.statusCode).toBe(200);
    const now = expected(seeded, FROM, TO);
    const then = expected(seeded, BEFORE, FROM);
    const figure = (id: string) =>
      new RegExp(`data-figure="${id}"[\\s\\S]*?</div>`).exec(res.body)?.[0] ?? '';
    expect(figure('builds')).toContain(`data-value="${now.builds}"`);
    expect(figure('builds')).toContain('change-same');
    // Slower this week: a worse median, ▲ in the "bad" colour.
    expect(figure('duration_p50')).toMatch(/change-bad[^>]*><span aria-hidden="true">▲/);
    const rateUp = (now.rate as number) > (then.rate as number);
    expect(figure('success_rate')).toContain(rateUp ? 'change-good' : 'change-bad');
    expect(res.body.indexOf('data-figure="builds"')).toBeLessThan(res.body.indexOf('health-title'));
  });

  it('shows durations and other figures with their unit, the change and the period before too', async () => {
    // Two minutes-long builds a day in the period before, slower this week; lint steps under a
    // second; a bundle's size in bytes.
    for (let day = 0; day < 14; day++) {
      const at = BEFORE + day * DAY + 3_600_000;
      const recent = at >= FROM;
      await storeEvent(server, me.projectId, at, 'build', { status: 'success' });
      await storeMetric(server, me.projectId, at, {
        duration_ms: recent ? 116_000 : 101_000,
        lint_ms: recent ? 850 : 800,
        bundle_bytes: recent ? 532_000 : 530_000,
      });
    }
    await foldStatistics(server, Date.now());
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const from = new Date(FROM).toISOString().slice(0, 10);
    const to = new Date(TO - 1).toISOString().slice(0, 10);
    const page = async () => {
      const res = await browser.get(
        `/dashboard/projects/${me.projectId}?range=custom&from=${from}&to=${to}`,
      );
      expect(res.statusCode).toBe(200);
      const figure = (id: string) => {
        const html = new RegExp(`data-figure="${id}"[\\s\\S]*?</div>`).exec(res.body)?.[0] ?? '';
        const text = html.replace(/<[^>]+>/g, '').replace(/&nbsp;/g, ' ');
        return text;
      };
      return { p50: figure('duration_p50'), p95: figure('duration_p95'), body: res.body };
    };
    /** Whole seconds as minutes and seconds, as the page should say them (computed here). */
    const minutes = (ms: number) => {
      const whole = Math.round(ms / 1000);
      return `${Math.floor(whole / 60)} min ${whole % 60} s`;
    };

    const api = await headline();
    expect(api.duration_p50.unit).toBe('ms');
    near(api.duration_p50.value, 116_000);
    near(api.duration_p50.previous, 101_000);
    const shown = await page();
    const value = minutes(api.duration_p50.value as number);
    const before = minutes(api.duration_p50.previous as number);
    // Under a minute: seconds to 3 significant digits.
    const change = Number(
      (
        ((api.duration_p50.value as number) - (api.duration_p50.previous as number)) /
        1000
      ).toPrecision(3),
    );
    expect(shown.p50).toContain(`Median build duration${value}`);
    expect(value).toMatch(/^1 min 5[5-7] s$/);
    expect(shown.p50).toContain(`▲ ${change} s`);
    expect(shown.p50).toContain(`(before: ${before})`);
    expect(shown.p95).toMatch(/p95 build duration\d+ min \d+ s/);
    // No figure of the headline is a bare number of milliseconds.
    expect(`${shown.p50}${shown.p95}`).not.toMatch(/\d{1,3},\d{3}/);

    // Under a second: in ms; a size: in kB (the series' unit where the key names one).
    await server.call('POST', ProjectPagePaths.updateDurationKey, {
      key: me.apiKey,
      body: { projectId: me.projectId, duration_key: 'lint_ms' },
    });
    const lint = await headline();
    const lintShown = await page();
    expect(lintShown.p50).toContain(
      `Median build duration${Math.round(lint.duration_p50.value as number)} ms`,
    );
    expect(lintShown.p50).toMatch(/▲ \d+ ms/);
    await server.call('POST', ProjectPagePaths.updateDurationKey, {
      key: me.apiKey,
      body: { projectId: me.projectId, duration_key: 'bundle_bytes' },
    });
    const bundle = await headline();
    expect(bundle.duration_p50.unit).toBe('bytes');
    const bundleShown = await page();
    expect(bundleShown.p50).toMatch(/Median build duration53\d kB/);
    expect(bundleShown.p50).toMatch(/▲ [\d.]+ kB/);
  });

  it('tables the range by event type, and a type filters the builds, headline and timeline', async () => {
    const seeded = await seed();
    // The types are listed from the cells (a record is folded within about a second).
    await foldStatistics(server, Date.now());
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const from = new Date(FROM).toISOString().slice(0, 10);
    const to = new Date(TO - 1).toISOString().slice(0, 10);
    const base = `/dashboard/projects/${me.projectId}?range=custom&from=${from}&to=${to}`;
    const res = await browser.get(base);
    const inRange = seeded.statuses.filter((e) => e.at >= FROM && e.at < TO);
    const want = (type: string) => {
      const of = inRange.filter((e) => (e.status === null ? 'deploy' : 'build') === type);
      const success = of.filter((e) => e.status === 'success').length;
      const failure = of.filter((e) => e.status === 'failure').length;
      return {
        runs: of.length,
        rate: success + failure === 0 ? -1 : success / (success + failure),
      };
    };
    const rows = [
      ...res.body.matchAll(
        /<tr data-event-type="(\w+)"[^>]*><td[^>]*>.*?<\/td><td data-value="(\d+)">.*?<\/td><td data-value="([-\d.e]+)">/g,
      ),
    ].map((m) => [m[1], Number(m[2]), Number(m[3])]);
    expect(rows.map((r) => r[0]).sort()).toEqual(['build', 'deploy']);
    for (const [type, runs, rate] of rows) {
      const w = want(type as string);
      expect(runs).toBe(w.runs);
      expect(rate as number).toBeCloseTo(w.rate, 12);
    }
    // Most runs first.
    expect((rows[0]?.[1] as number) >= (rows[1]?.[1] as number)).toBe(true);

    // The row's link filters the page to its type: builds, success rate, timeline.
    const link = /<tr data-event-type="deploy"[^>]*><td[^>]*><a href="([^"]+)"/.exec(res.body)?.[1];
    expect(link).toContain('type=deploy');
    const deploys = await browser.get((link as string).replace(/&amp;/g, '&'));
    expect(deploys.statusCode).toBe(200);
    expect(deploys.body).toContain(
      `data-figure="builds"><dt class="stat-label">Builds</dt><dd class="stat-value" data-value="${want('deploy').runs}"`,
    );
    expect(deploys.body).toMatch(/<p class="filter-note">Showing <code>deploy<\/code> only/);
    const timelineTypes = [
      ...deploys.body.matchAll(/<p class="event-title"><strong>(\w+)<\/strong>/g),
    ].map((m) => m[1]);
    expect(timelineTypes.length).toBeGreaterThan(0);
    expect(new Set(timelineTypes)).toEqual(new Set(['deploy']));
    // The API says the same, with eventType.
    const api = await headline({ eventType: 'deploy' });
    expect(api.builds.value).toBe(want('deploy').runs);
    expect(api.eventType).toBe('deploy');
    // A type too long is a 400 page, nothing else.
    expect((await browser.get(`${base}&type=${'x'.repeat(101)}`)).statusCode).toBe(400);
  });

  it('exports the headline, the table by event type, the keys and a chart as CSV of what the page shows', async () => {
    const seeded = await seed();
    await storeMetric(server, me.projectId, TO - 1000, { '=cmd': 1, ci: { branch: 'main' } });
    await foldStatistics(server, Date.now());
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const from = new Date(FROM).toISOString().slice(0, 10);
    const to = new Date(TO - 1).toISOString().slice(0, 10);
    const page = await browser.get(
      `/dashboard/projects/${me.projectId}?range=custom&from=${from}&to=${to}`,
    );
    const links = [...page.body.matchAll(/<a class="csv-link" href="([^"]+)"/g)].map((m) =>
      (m[1] as string).replace(/&amp;/g, '&'),
    );
    const linkTo = (table: string, key?: string) => {
      const found = links.find(
        (href) =>
          href.includes(`table=${table}`) && (key === undefined || href.endsWith(`key=${key}`)),
      );
      expect(found, table).toBeDefined();
      return found as string;
    };
    const rowsOf = async (href: string) => {
      const res = await browser.get(href);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      const [head, ...rows] = res.body
        .trimEnd()
        .split('\r\n')
        .map((line) => line.split(','));
      return rows.map((row) => Object.fromEntries((head as string[]).map((h, i) => [h, row[i]])));
    };

    // The headline: the same figures as get-headline, with their change.
    const api = await headline();
    const figures = await rowsOf(linkTo('headline'));
    for (const name of ['builds', 'success_rate', 'duration_p50', 'active_alerts'] as const) {
      const row = figures.find((r) => r.figure === name);
      const figure = api[name];
      expect(Number(row?.value)).toBe(figure.value);
      expect(Number(row?.previous)).toBe(figure.previous);
      expect(Number(row?.change)).toBeCloseTo((figure.value ?? 0) - (figure.previous ?? 0), 9);
    }

    // The table by event type, against the seeded events.
    const types = await rowsOf(linkTo('event-types'));
    const inRange = seeded.statuses.filter((e) => e.at >= FROM && e.at < TO);
    expect(Number(types.find((r) => r.event_type === 'build')?.runs)).toBe(
      inRange.filter((e) => e.status !== null).length,
    );
    expect(Number(types.find((r) => r.event_type === 'deploy')?.runs)).toBe(
      inRange.filter((e) => e.status === null).length,
    );

    // A chart's buckets hold every value of the range.
    const buckets = await rowsOf(linkTo('chart', 'duration_ms'));
    const values = expected(seeded, FROM, TO).values;
    expect(buckets.reduce((n, b) => n + Number(b.count), 0)).toBe(values.length);
    expect(Math.min(...buckets.map((b) => Number(b.min)))).toBe(Math.min(...values));
    expect(Math.max(...buckets.map((b) => Number(b.max)))).toBe(Math.max(...values));

    // A key a spreadsheet would run as a formula is written as text.
    const keys = await rowsOf(linkTo('keys'));
    expect(keys.map((k) => k.key)).toContain("'=cmd");

    // Bad input: a clear 400 or 404, never another project's data.
    const base = `/dashboard/projects/${me.projectId}/export.csv?range=7d`;
    expect((await browser.get(`${base}&table=nope`)).statusCode).toBe(400);
    expect((await browser.get(`${base}&table=chart`)).statusCode).toBe(400);
    expect((await browser.get(`${base}&table=chart&key=no_such_key`)).statusCode).toBe(404);
    const other = await server.account();
    const foreign = await browser.get(
      `/dashboard/projects/${other.projectId}/export.csv?range=7d&table=keys`,
    );
    expect(foreign.statusCode).toBe(404);
  });
});
