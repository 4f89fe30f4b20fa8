import { describe, expect, it } from 'vitest';
import { ProjectPagePaths } from '../../contract/project-page.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { newRecordId } from '../../server/domain/ids.js';
import { FormClient } from '../helpers/form-client.js';
import { foldStatistics, storeEvent, storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * The project page's marks and chart order (issue 28): releases and deploys on every chart,
 * alerts and change points on their key's, found through the statistics cells; charts with a
 * regression first, then the build-duration key's, then the rest; a key without a point in the
 * range listed in one line.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface ChartData {
  from: number;
  to: number;
  charts: { key: string }[];
  marks: [number, string, string | null, string, string | null, string | null][];
}

async function openPage(browser: FormClient, query = 'range=7d') {
  const res = await browser.get(`/dashboard/projects/${me.projectId}?${query}`);
  expect(res.statusCode).toBe(200);
  const json = /<script type="application\/json" id="chart-data">([^<]*)<\/script>/.exec(
    res.body,
  )?.[1];
  return { body: res.body, data: JSON.parse(json ?? 'null') as ChartData };
}

/** A week of builds with three series; a release, a deploy, and a build on another branch. */
async function seed(now: number) {
  const times: number[] = [];
  for (let t = now - 6 * DAY; t < now - HOUR; t += 6 * HOUR) times.push(t);
  const release = times[10] as number;
  const deploy = times[14] as number;
  for (const t of times) {
    await storeEvent(server, me.projectId, t, 'build', {
      status: 'success',
      ci: { branch: 'main' },
    });
    if (t === release) {
      await storeEvent(server, me.projectId, t + 1000, 'release', {
        version: 'v1.2.3',
        github: {
          sha: '0123456789abcdef0123',
          ref: 'refs/heads/main',
          release: { tag: 'v1.2.3', url: 'https://github.com/octo/app/releases/tag/v1.2.3' },
        },
      });
    }
    if (t === deploy) {
      await storeEvent(server, me.projectId, t + 2000, 'deploy', {
        ci: { branch: 'feature', commit: 'fedcba9876543210' },
      });
    }
    await storeMetric(server, me.projectId, t, {
      a_first: 1,
      b_bundle: 500,
      duration_ms: 90_000,
      ci: { branch: 'main' },
    });
  }
  return { release: release + 1000, deploy: deploy + 2000 };
}

describe('marks on the charts', () => {
  it('marks releases, deploys, alerts and change points at their times, on the right charts', async () => {
    const now = Date.now();
    const { release, deploy } = await seed(now);
    await server.call('POST', VerdictPaths.updateProject, {
      key: me.apiKey,
      body: { projectId: me.projectId, default_threshold: false },
    });
    const alertAt = now - 2 * DAY;
    await server.app.storage.verdicts.createAlert({
      id: newRecordId(),
      projectId: me.projectId,
      key: 'b_bundle',
      branch: 'main',
      recordId: newRecordId(),
      commit: 'abcabcabcabc00',
      value: 700,
      baseline: 500,
      limit: 600,
      side: 'upper',
      test: 'percentage',
      createdAt: alertAt,
    });
    const changeAt = now - 3 * DAY;
    await server.app.storage.verdicts.saveChangePoints(me.projectId, 'a_first', {
      state: '{}',
      stale: false,
      from: 0,
      points: [
        {
          index: 5,
          seq: 1,
          recordId: newRecordId(),
          commit: null,
          at: changeAt,
          beforeMean: 1,
          afterMean: 2,
          change: 1,
          pValue: 0.001,
        },
      ],
    });
    // A change point before the range is not marked.
    await server.app.storage.verdicts.saveChangePoints(me.projectId, 'duration_ms', {
      state: '{}',
      stale: false,
      from: 0,
      points: [
        {
          index: 1,
          seq: 1,
          recordId: newRecordId(),
          commit: null,
          at: now - 20 * DAY,
          beforeMean: 1,
          afterMean: 2,
          change: 1,
          pValue: 0.001,
        },
      ],
    });
    await foldStatistics(server, now);

    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const { data, body } = await openPage(browser);
    const byKind = (kind: string) => data.marks.filter((m) => m[1] === kind);
    expect(byKind('release')).toEqual([
      [
        release / 1000,
        'release',
        null,
        'release v1.2.3',
        '0123456789ab',
        'https://github.com/octo/app/releases/tag/v1.2.3',
      ],
    ]);
    expect(byKind('deploy')).toEqual([
      [deploy / 1000, 'deploy', null, 'deploy', 'fedcba987654', null],
    ]);
    expect(byKind('alert')).toEqual([
      [alertAt / 1000, 'alert', 'b_bundle', 'alert: 700 past the limit 600', 'abcabcabcabc', null],
    ]);
    expect(byKind('change').map((m) => [m[0], m[2]])).toEqual([[changeAt / 1000, 'a_first']]);
    // Oldest first.
    expect(data.marks.map((m) => m[0])).toEqual(data.marks.map((m) => m[0]).sort((a, b) => a - b));
    // The build-health bars carry the releases and deploys at their share of the range.
    const lines = [
      ...body.matchAll(
        /<g class="health-mark mark-(\w+)" data-at="(\d+)">[\s\S]*?<line x1="([\d.]+)"/g,
      ),
    ];
    expect(lines.map((m) => [m[1], Number(m[2])])).toEqual([
      ['release', release],
      ['deploy', deploy],
    ]);
    for (const m of lines) {
      const want = ((Number(m[2]) - data.from) / (data.to - data.from)) * 720;
      expect(Math.abs(Number(m[3]) - want)).toBeLessThan(0.01);
    }

    // On one branch: the deploy of another branch is not marked, the release (no branch) neither.
    const feature = await openPage(browser, 'range=7d&branch=main');
    expect(feature.data.marks.filter((m) => m[1] === 'deploy')).toEqual([]);
  });

  it('draws regressions first, then the build-duration key, and lists keys without points in one line', async () => {
    const now = Date.now();
    await seed(now);
    await server.call('POST', VerdictPaths.updateProject, {
      key: me.apiKey,
      body: { projectId: me.projectId, default_threshold: false },
    });
    // An old key: no point in the last week.
    await foldStatistics(server, now);
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    // Key order without any regression: the duration key first, then the key list's order.
    expect((await openPage(browser)).data.charts.map((c) => c.key)).toEqual([
      'duration_ms',
      'a_first',
      'b_bundle',
    ]);
    await server.app.storage.verdicts.createAlert({
      id: newRecordId(),
      projectId: me.projectId,
      key: 'b_bundle',
      branch: 'main',
      recordId: newRecordId(),
      commit: null,
      value: 700,
      baseline: 500,
      limit: 600,
      side: 'upper',
      test: 'percentage',
      createdAt: now - DAY,
    });
    expect((await openPage(browser)).data.charts.map((c) => c.key)).toEqual([
      'b_bundle',
      'duration_ms',
      'a_first',
    ]);
    // A dismissed alert no longer lifts its chart.
    const alerts = await server.call('GET', `${VerdictPaths.getAlerts}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    const [alert] = alerts.json().alerts as { id: string }[];
    await server.call('POST', VerdictPaths.dismissAlert, {
      key: me.apiKey,
      body: { id: alert?.id },
    });
    expect((await openPage(browser)).data.charts[0]?.key).toBe('duration_ms');

    // Asked-for keys without a point in the range: one line, no empty chart.
    const asked = await openPage(browser, 'range=24h&chart=old_key&chart=a_first&chart=gone');
    expect(asked.data.charts.map((c) => c.key)).toEqual(['a_first']);
    expect(asked.body).toMatch(
      /data-empty-charts="true">No points in this range: <code>old_key<\/code>, <code>gone<\/code>\.<\/p>/,
    );
    expect(asked.body.match(/class="chart"/g)).toHaveLength(1);
  });

  it('marks the event types the owner sets, on the page or through the API; bad input changes nothing', async () => {
    const now = Date.now();
    const { release, deploy } = await seed(now);
    const rollback = now - 2 * HOUR;
    await storeEvent(server, me.projectId, rollback, 'rollback', {
      version: 'v1.2.2',
      ci: { commit: 'aaaabbbbccccdddd', build_url: 'https://ci.example.com/builds/7' },
    });
    await foldStatistics(server, now);
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const kinds = async () =>
      (await openPage(browser)).data.marks.map((m) => [m[0] * 1000, m[1], m[3]] as const);

    // By default: releases and deploys.
    expect(await kinds()).toEqual([
      [release, 'release', 'release v1.2.3'],
      [deploy, 'deploy', 'deploy'],
    ]);
    const settings = () =>
      server.call('GET', `${ProjectPagePaths.getMarkEventTypes}?projectId=${me.projectId}`, {
        key: me.apiKey,
      });
    expect((await settings()).json()).toEqual({
      projectId: me.projectId,
      event_types: ['release', 'deploy'],
      event_types_set: false,
    });

    // On the page: rollbacks and deploys (each once), releases no more.
    const saved = await browser.post(`/dashboard/projects/${me.projectId}/mark-types`, {
      event_types: ' rollback, deploy ,,rollback',
    });
    expect(saved.statusCode).toBe(303);
    expect(await kinds()).toEqual([
      [deploy, 'deploy', 'deploy'],
      [rollback, 'event', 'rollback v1.2.2'],
    ]);
    const page = await openPage(browser);
    expect(page.body).toContain('value="rollback, deploy"');
    expect(page.body).toMatch(/events of type\s*<code>rollback<\/code> or <code>deploy<\/code>/);
    // The build-health bars carry them too.
    expect(
      [...page.body.matchAll(/<g class="health-mark mark-(\w+)" data-at="(\d+)">/g)].map((m) => [
        m[1],
        Number(m[2]),
      ]),
    ).toEqual([
      ['deploy', deploy],
      ['event', rollback],
    ]);

    // Bad input changes nothing, on the page and through the API.
    const stored = {
      projectId: me.projectId,
      event_types: ['rollback', 'deploy'],
      event_types_set: true,
    };
    for (const text of [Array.from({ length: 11 }, (_, i) => `t${i}`).join(','), 'x'.repeat(101)]) {
      const bad = await browser.post(`/dashboard/projects/${me.projectId}/mark-types`, {
        event_types: text,
      });
      expect(bad.statusCode).toBe(400);
    }
    for (const body of [
      { projectId: me.projectId, event_types: [] },
      { projectId: me.projectId, event_types: [''] },
      { projectId: me.projectId, event_types: 'release' },
      { projectId: me.projectId, event_types: Array.from({ length: 11 }, (_, i) => `t${i}`) },
      { projectId: me.projectId },
    ]) {
      const bad = await server.call('POST', ProjectPagePaths.updateMarkEventTypes, {
        key: me.apiKey,
        body,
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error: 'event_types is invalid.' });
    }
    const other = await server.account();
    const foreign = await server.call('POST', ProjectPagePaths.updateMarkEventTypes, {
      key: other.apiKey,
      body: { projectId: me.projectId, event_types: ['stolen'] },
    });
    expect(foreign.statusCode).toBe(403);
    expect(
      (
        await browser.post(`/dashboard/projects/${other.projectId}/mark-types`, {
          event_types: 'x',
        })
      ).statusCode,
    ).toBe(404);
    expect((await settings()).json()).toEqual(stored);

    // Through the API: releases only; null goes back to the default.
    const api = await server.call('POST', ProjectPagePaths.updateMarkEventTypes, {
      key: me.apiKey,
      body: { projectId: me.projectId, event_types: ['release'] },
    });
    expect(api.statusCode, api.body).toBe(200);
    expect(api.json()).toEqual({
      projectId: me.projectId,
      event_types: ['release'],
      event_types_set: true,
    });
    expect((await kinds()).map((m) => m[1])).toEqual(['release']);
    const reset = await server.call('POST', ProjectPagePaths.updateMarkEventTypes, {
      key: me.apiKey,
      body: { projectId: me.projectId, event_types: null },
    });
    expect(reset.json()).toMatchObject({
      event_types: ['release', 'deploy'],
      event_types_set: false,
    });
    expect((await kinds()).map((m) => m[1])).toEqual(['release', 'deploy']);
  });
});
