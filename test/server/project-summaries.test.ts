import { expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import type { ProjectSummaries } from '../../contract/summaries.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { FormClient } from '../helpers/form-client.js';
import { storeEvent, storeMetric } from '../helpers/seed-records.js';
import {
  ADMIN_TOKEN,
  eachTestServer,
  type TestAccount,
  type TestServer,
} from '../helpers/server.js';

/**
 * Issue 28, across projects: GET /stats/get-project-summaries and the dashboard's overview. The
 * figures are computed here from the records planted, by the definitions of docs/api.md.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started), {
  RATE_LIMIT_INGEST_PER_MINUTE: '0',
  RATE_LIMIT_OTHER_PER_MINUTE: '0',
});

const DAY = 86_400_000;
const HOUR = 3_600_000;

async function project(name: string): Promise<string> {
  const res = await server.call('POST', `/admin/accounts/${me.accountId}/projects`, {
    body: { name },
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return (res.json() as { id: string }).id;
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[(sorted.length - 1) / 2] as number;
};
/** Within the 2 % the statistics' percentiles promise. */
const near = (value: number | null, exact: number) => {
  expect(value).not.toBeNull();
  expect(Math.abs((value as number) - exact)).toBeLessThanOrEqual(exact * 0.02);
};

interface Planted {
  /** Per day, oldest (0) to today (6): statuses and durations. */
  days: { statuses: string[]; durations: number[] }[];
}

/** Builds at the middle of each of the last 7 days (a day's start is now minus whole days). */
async function plant(projectId: string, planted: Planted, now: number) {
  for (const [i, day] of planted.days.entries()) {
    const at = now - (6.5 - i) * DAY;
    for (const [j, status] of day.statuses.entries()) {
      await storeEvent(server, projectId, at + j * 60_000, 'build', { status });
    }
    for (const [j, duration_ms] of day.durations.entries()) {
      await storeMetric(server, projectId, at + j * 60_000, { duration_ms });
    }
  }
}

it('summarises each project over 7 days, the one needing attention first', async () => {
  const now = Date.now();
  const alpha = me.projectId;
  const beta = await project('beta');
  const gamma = await project('gamma');
  const delta = await project('delta');

  // alpha: mostly green, durations, one flaky test; a failure 8 days ago is out of the range.
  await storeEvent(server, alpha, now - 8 * DAY, 'build', { status: 'failure' });
  const alphaPlanted: Planted = {
    days: [
      { statuses: ['success', 'failure'], durations: [100_000] },
      { statuses: ['success'], durations: [120_000, 90_000, 130_000] },
      { statuses: [], durations: [] },
      { statuses: ['success', 'success', 'failure'], durations: [110_000] },
      { statuses: ['cancelled'], durations: [] },
      { statuses: ['success'], durations: [95_000, 105_000, 140_000] },
      { statuses: ['success'], durations: [100_500] },
    ],
  };
  await plant(alpha, alphaPlanted, now);
  for (const [buildId, attempts] of [
    ['b1', 1],
    ['b2', 2],
  ] as const) {
    const res = await server.call('POST', Paths.ingestTests, {
      key: me.apiKey,
      body: {
        projectId: alpha,
        buildId,
        commit: buildId,
        branch: 'main',
        cases: [
          { suite: 's', name: 'retry', status: 'passed', duration_ms: 5, attempts },
          { suite: 's', name: 'steady', status: 'passed', duration_ms: 5 },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  // beta: its latest build failed.
  await plant(
    beta,
    {
      days: [0, 1, 2, 3, 4, 5, 6].map((i) => ({
        statuses: i === 6 ? ['failure'] : ['success'],
        durations: [],
      })),
    },
    now,
  );
  // delta: all green, but a regression alert on t.
  await storeEvent(server, delta, now - HOUR, 'build', { status: 'success' });
  await server.call('POST', VerdictPaths.createThreshold, {
    key: me.apiKey,
    body: { projectId: delta, key: 't', branch: '*', test: 'percentage', upper_boundary: 0.1 },
  });
  for (const [commit, t] of [
    ['m0', 100],
    ['m1', 200],
  ] as const) {
    await server.call('POST', Paths.ingestMetrics, {
      key: me.apiKey,
      body: {
        projectId: delta,
        payload: { t, directions: { t: 'lower' }, ci: { branch: 'main', commit } },
      },
    });
  }

  const res = await server.call('GET', Paths.getProjectSummaries, { key: me.apiKey });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as ProjectSummaries;
  expect(Date.parse(body.to) - Date.parse(body.from)).toBe(7 * DAY);
  expect(body.projects.map((p) => p.name)).toEqual(['beta', 'delta', 'test project', 'gamma']);
  const byName = Object.fromEntries(body.projects.map((p) => [p.name, p]));

  const a = byName['test project'];
  const statuses = alphaPlanted.days.flatMap((d) => d.statuses);
  const successes = statuses.filter((s) => s === 'success').length;
  const failures = statuses.filter((s) => s === 'failure').length;
  expect(a).toMatchObject({
    id: alpha,
    latest: { status: 'success', event_type: 'build' },
    success: successes,
    failure: failures,
    success_rate: successes / (successes + failures),
    duration_key: 'duration_ms',
    active_alerts: 0,
    flaky_tests: 1,
    attention: ['failures', 'flaky-tests'],
  });
  near(a?.median_duration ?? null, median(alphaPlanted.days.flatMap((d) => d.durations)));
  expect(a?.days).toHaveLength(7);
  for (const [i, day] of alphaPlanted.days.entries()) {
    const shown = a?.days[i];
    expect(Date.parse(shown?.start as string)).toBe(Date.parse(body.from) + i * DAY);
    const s = day.statuses.filter((x) => x === 'success').length;
    const f = day.statuses.filter((x) => x === 'failure').length;
    expect(shown).toMatchObject({
      success: s,
      failure: f,
      success_rate: s + f ? s / (s + f) : null,
    });
    if (day.durations.length === 0) expect(shown?.median_duration).toBeNull();
    else near(shown?.median_duration ?? null, median(day.durations));
  }

  expect(byName.beta).toMatchObject({
    latest: { status: 'failure', event_type: 'build' },
    success: 6,
    failure: 1,
    success_rate: 6 / 7,
    duration_key: null,
    median_duration: null,
    attention: ['latest-failed', 'failures'],
  });
  expect(byName.delta).toMatchObject({
    latest: { status: 'success', event_type: 'build' },
    success_rate: 1,
    active_alerts: 1,
    attention: ['active-alerts'],
  });
  expect(byName.gamma).toMatchObject({
    id: gamma,
    latest: null,
    success: 0,
    failure: 0,
    success_rate: null,
    median_duration: null,
    active_alerts: 0,
    flaky_tests: 0,
    attention: [],
  });
  expect(byName.gamma?.days.every((d) => d.success_rate === null)).toBe(true);

  // The overview shows the same, in the same order, with the latest status coloured.
  const browser = new FormClient(server);
  await browser.signIn(me.apiKey);
  const overview = (await browser.get('/dashboard')).body;
  const rows = [...overview.matchAll(/<tr class="summary-row"[^>]*>([\s\S]*?)<\/tr>/g)].map(
    (m) => m[1] as string,
  );
  expect(rows.map((row) => /<a [^>]*>([^<]+)<\/a>/.exec(row)?.[1])).toEqual([
    'beta',
    'delta',
    'test project',
    'gamma',
  ]);
  expect(rows[0]).toContain('status-failure bad');
  expect(rows[0]).toContain(`${((6 / 7) * 100).toFixed(1)} %`);
  expect(rows[1]).toContain('1 active alert');
  expect(rows[2]).toContain('1 flaky test');
  expect(rows[2]).toMatch(/<svg class="sparkline"[^>]*>[\s\S]*<polyline/);
  expect(rows[3]).toContain('No builds');
});

it('lists only the projects of the caller, and refuses an ingest key', async () => {
  const other = await server.account();
  await storeEvent(server, other.projectId, Date.now() - HOUR, 'build', { status: 'failure' });
  const mine = (await server.call('GET', Paths.getProjectSummaries, { key: me.apiKey })).json();
  expect(mine.projects.map((p: { id: string }) => p.id)).toEqual([me.projectId]);
  const created = await server.call('POST', Paths.createApiKey, {
    key: me.apiKey,
    body: { scope: 'ingest' },
  });
  const ingestKey = created.json().apiKey as string;
  const refused = await server.call('GET', Paths.getProjectSummaries, { key: ingestKey });
  expect(refused.statusCode).toBe(403);
  expect((await server.call('GET', Paths.getProjectSummaries)).statusCode).toBe(401);
});
