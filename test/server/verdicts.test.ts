import { describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { type Comparison, VerdictPaths } from '../../contract/verdicts.js';
import { holdJudging } from '../helpers/hold-judging.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Verdicts on both backends (issue 23): units and directions, thresholds, the project's default
 * branch, and each value judged against the right baseline (docs/verdicts.md). Limits are
 * computed here from the definitions (percentage: mean·(1 ± b)), not by the server's code.
 */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started));

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function ingest(payload: Record<string, unknown>, key = me.apiKey) {
  const res = await server.call('POST', Paths.ingestMetrics, {
    key,
    body: { projectId: me.projectId, payload },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as string;
}

/** A metric of `branch` at `commit` (as the reporters send them). */
const on = (branch: string, commit: string, values: Record<string, unknown>, pr?: object) => ({
  ...values,
  ci: { branch, commit, ...(pr ? { pull_request: pr } : {}) },
});

const post = (path: string, body: unknown, key = me.apiKey) =>
  server.call('POST', path, { key, body });
const get = (path: string, key = me.apiKey) => server.call('GET', path, { key });

async function compare(record: string): Promise<Comparison> {
  const res = await get(`${VerdictPaths.compare}?projectId=${me.projectId}&record=${record}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function threshold(body: Record<string, unknown>) {
  const res = await post(VerdictPaths.createThreshold, { projectId: me.projectId, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().threshold;
}

async function ingestKey() {
  const res = await post(Paths.createApiKey, { scope: 'ingest' });
  expect(res.statusCode).toBe(201);
  return res.json().apiKey as string;
}

describe('series units and directions', () => {
  it('records declare them, the owner overrides them, keys list them; ci and github leaves are no series', async () => {
    await ingest({
      build_ms: 1200,
      bundle_bytes: 5000,
      units: { build_ms: 'ms', bundle_bytes: 'bytes' },
      directions: { build_ms: 'lower', bundle_bytes: null },
      ci: { run_id: 987654, attempt: 2, pull_request: { number: 12 } },
      github: { run_number: 77 },
    });
    const keys = async () =>
      (await get(`${Paths.getMetricKeys}?projectId=${me.projectId}`)).json().keys;
    expect(await keys()).toEqual([
      {
        key: 'build_ms',
        count: 1,
        last_value: 1200,
        last_at: expect.any(String),
        unit: 'ms',
        direction: 'lower',
      },
      {
        key: 'bundle_bytes',
        count: 1,
        last_value: 5000,
        last_at: expect.any(String),
        unit: 'bytes',
        direction: null,
      },
    ]);

    const set = await post(VerdictPaths.updateSeries, {
      projectId: me.projectId,
      key: 'bundle_bytes',
      direction: 'lower',
    });
    expect(set.json()).toEqual({ key: 'bundle_bytes', unit: 'bytes', direction: 'lower' });
    // A later record's declaration no longer changes what the owner set; it does change the rest.
    await ingest({
      bundle_bytes: 5100,
      build_ms: 1100,
      units: { bundle_bytes: 'B', build_ms: 's' },
      directions: { bundle_bytes: 'higher' },
    });
    const listed = await keys();
    expect(
      listed.map((k: { key: string; unit: string; direction: string }) => [
        k.key,
        k.unit,
        k.direction,
      ]),
    ).toEqual([
      ['build_ms', 's', 'lower'],
      ['bundle_bytes', 'B', 'lower'],
    ]);
  });

  it('refuses a bad direction (naming the field, storing nothing) and an ingest-only key', async () => {
    const bad = await server.call('POST', Paths.ingestMetrics, {
      key: me.apiKey,
      body: { projectId: me.projectId, payload: { t: 1, directions: { t: 'down' } } },
    });
    expect({ status: bad.statusCode, body: bad.json() }).toEqual({
      status: 400,
      body: { error: 'payload.directions.t is invalid.' },
    });
    const stored = await get(`${Paths.getMetrics}?projectId=${me.projectId}`);
    expect(stored.json().metrics).toEqual([]);

    const update = await post(VerdictPaths.updateSeries, {
      projectId: me.projectId,
      key: 't',
      direction: 'sideways',
    });
    expect(update.statusCode).toBe(400);
    expect(update.json().error).toBe('direction is invalid.');

    const ingestOnly = await ingestKey();
    const refused = await post(
      VerdictPaths.updateSeries,
      { projectId: me.projectId, key: 't', direction: 'lower' },
      ingestOnly,
    );
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 403,
      body: { error: OwnError.ingestOnly },
    });
  });
});

describe('thresholds', () => {
  it('creates, lists, changes and deletes; refuses a bad model naming the field', async () => {
    const created = await threshold({
      key: 'bench/*',
      branch: 'main',
      test: 'percentage',
      upper_boundary: 0.1,
    });
    expect(created).toEqual({
      id: expect.any(String),
      projectId: me.projectId,
      key: 'bench/*',
      branch: 'main',
      test: 'percentage',
      lower_boundary: null,
      upper_boundary: 0.1,
      min_sample_size: null,
      max_sample_size: null,
      window_seconds: null,
      created_at: expect.any(String),
    });
    const list = async () =>
      (await get(`${VerdictPaths.getThresholds}?projectId=${me.projectId}`)).json().thresholds;
    expect(await list()).toEqual([created]);

    const changed = await post(VerdictPaths.updateThreshold, {
      id: created.id,
      test: 't_test',
      upper_boundary: 0.95,
    });
    expect(changed.json().threshold).toEqual({ ...created, test: 't_test', upper_boundary: 0.95 });

    const bad = await post(VerdictPaths.updateThreshold, { id: created.id, upper_boundary: 1.5 });
    expect({ status: bad.statusCode, body: bad.json() }).toEqual({
      status: 400,
      body: { error: 'upper_boundary must be a probability in [0.5, 1) for t_test.' },
    });
    const badTest = await post(VerdictPaths.createThreshold, {
      projectId: me.projectId,
      key: 'x',
      branch: '*',
      test: 'magic',
      upper_boundary: 1,
    });
    expect(badTest.statusCode).toBe(400);
    expect(badTest.json().error).toMatch(/^test must be one of: static, percentage/);
    const noKey = await post(VerdictPaths.createThreshold, {
      projectId: me.projectId,
      branch: '*',
      test: 'iqr',
    });
    expect(noKey.json()).toEqual({ error: 'key is invalid.', issues: expect.any(Array) });
    expect(await list()).toEqual([{ ...created, test: 't_test', upper_boundary: 0.95 }]);

    const other = await server.account();
    const foreign = await post(VerdictPaths.deleteThreshold, { id: created.id }, other.apiKey);
    expect(foreign.statusCode).toBe(404);
    const ingestOnly = await ingestKey();
    expect(
      (await post(VerdictPaths.deleteThreshold, { id: created.id }, ingestOnly)).statusCode,
    ).toBe(403);
    expect(
      (await get(`${VerdictPaths.getThresholds}?projectId=${me.projectId}`, other.apiKey))
        .statusCode,
    ).toBe(403);

    const deleted = await post(VerdictPaths.deleteThreshold, { id: created.id });
    expect(deleted.json()).toEqual({ success: true });
    expect(await list()).toEqual([]);
  });
});

describe('project settings', () => {
  it('the default branch is main, master when only master has records, or what the owner sets', async () => {
    const settings = async () =>
      (await get(`${VerdictPaths.getProjectSettings}?projectId=${me.projectId}`)).json();
    expect(await settings()).toMatchObject({ default_branch: 'main', default_branch_set: false });
    await ingest(on('master', 'a1', { t: 1 }));
    expect(await settings()).toMatchObject({ default_branch: 'master' });
    await ingest(on('main', 'a2', { t: 1 }));
    expect(await settings()).toMatchObject({ default_branch: 'main' });
    const set = await post(VerdictPaths.updateProject, {
      projectId: me.projectId,
      default_branch: 'trunk',
    });
    expect(set.json()).toEqual({
      projectId: me.projectId,
      default_branch: 'trunk',
      default_branch_set: true,
      default_threshold: true,
      chat_webhook: false,
      reevaluations_queued: 0,
    });
    const bad = await post(VerdictPaths.updateProject, {
      projectId: me.projectId,
      default_branch: 7,
    });
    expect(bad.json().error).toBe('default_branch is invalid.');
  });
});

describe('judging', () => {
  const declared = { units: { t: 'ms' }, directions: { t: 'lower' } };

  it('judges the default branch against its own earlier values, with the default t_test', async () => {
    const history = [100, 102, 98, 101, 99, 103, 97, 100, 101, 99];
    for (const [i, v] of history.entries())
      await ingest(on('main', `c${i}`, { t: v, ...declared }));
    const within = await ingest(on('main', 'c10', { t: 101, ...declared }));
    const beyond = await ingest(on('main', 'c11', { t: 150, ...declared }));
    const ok = (await compare(within)).keys[0];
    expect(ok).toMatchObject({
      key: 't',
      unit: 'ms',
      direction: 'lower',
      value: 101,
      test: 't_test',
      sample_size: 10,
      lower_limit: null,
      verdict: 'ok',
      base: { branch: 'main', commit: 'c9' },
    });
    expect(ok?.baseline).toBeCloseTo(mean(history), 12);
    const worse = await compare(beyond);
    expect(worse.record).toEqual({ id: beyond, branch: 'main', commit: 'c11' });
    expect(worse.keys[0]).toMatchObject({ verdict: 'regression', sample_size: 11 });
    expect(worse.keys[0]?.baseline).toBeCloseTo(mean([...history, 101]), 12);
    expect(worse.keys[0]?.change).toBeCloseTo(150 / mean([...history, 101]) - 1, 12);
    expect(worse.alerts).toEqual([
      expect.objectContaining({
        key: 't',
        record_id: beyond,
        side: 'upper',
        status: 'active',
        value: 150,
      }),
    ]);
    // The first seven values are too few for the default (8): no baseline yet.
    const first = await ingest(on('main', 'c12', { u: 1, directions: { u: 'higher' } }));
    expect((await compare(first)).keys).toEqual([
      expect.objectContaining({
        key: 'u',
        verdict: 'no-baseline',
        direction: 'higher',
        baseline: null,
      }),
    ]);
  });

  it('judges a pull request against the target branch at its base commit, never later values', async () => {
    await threshold({
      key: 't',
      branch: 'main',
      test: 'percentage',
      lower_boundary: 0.1,
      upper_boundary: 0.1,
    });
    const main = [100, 110, 90, 105, 95];
    for (const [i, v] of main.entries()) await ingest(on('main', `m${i}`, { t: v, ...declared }));
    // main moves on after the pull request started at m2.
    await ingest(on('main', 'm5', { t: 500, ...declared }));
    const pr = await ingest(
      on(
        'feature',
        'f1',
        { t: 112, ...declared },
        { number: 3, target_branch: 'main', base_sha: 'm2' },
      ),
    );
    const base = mean(main.slice(0, 3));
    expect((await compare(pr)).keys[0]).toMatchObject({
      verdict: 'regression',
      base: { branch: 'main', commit: 'm2' },
      sample_size: 3,
      test: 'percentage',
    });
    const [key] = (await compare(pr)).keys;
    expect(key?.baseline).toBeCloseTo(base, 12);
    expect(key?.upper_limit).toBeCloseTo(base * 1.1, 12);
    expect(key?.lower_limit).toBeCloseTo(base * 0.9, 12);

    // Without a base commit on record: the target's values up to the pull request's own time.
    const unknownBase = await ingest(
      on(
        'feature',
        'f2',
        { t: 150, ...declared },
        { number: 3, target_branch: 'main', base_sha: 'nope' },
      ),
    );
    await ingest(on('main', 'm6', { t: 9000, ...declared }));
    const late = (await compare(unknownBase)).keys[0];
    expect(late?.baseline).toBeCloseTo(mean([...main, 500]), 12);
    expect(late?.base).toEqual({ branch: 'main', commit: 'm5' });
    // The Action's github.base_ref names the target too.
    const action = await ingest({
      t: 101,
      ...declared,
      github: { ref: 'refs/pull/3/merge', base_ref: 'main', sha: 'g1' },
    });
    expect((await compare(action)).keys[0]?.base).toEqual({ branch: 'main', commit: 'm6' });
  });

  it('judges another branch against its own history, else the default branch', async () => {
    await threshold({ key: 't', branch: '*', test: 'percentage', upper_boundary: 0.5 });
    for (const [i, v] of [100, 200].entries())
      await ingest(on('main', `m${i}`, { t: v, ...declared }));
    const first = await ingest(on('topic', 'x1', { t: 120, ...declared }));
    const second = await ingest(on('topic', 'x2', { t: 130, ...declared }));
    expect((await compare(first)).keys[0]).toMatchObject({
      baseline: 150,
      base: { branch: 'main', commit: 'm1' },
    });
    expect((await compare(second)).keys[0]).toMatchObject({
      baseline: 120,
      base: { branch: 'topic', commit: 'x1' },
    });
  });

  it('the most specific threshold wins; removing the default leaves keys without one unjudged', async () => {
    await threshold({ key: 'o*', branch: '*', test: 'percentage', upper_boundary: 0.5 });
    await threshold({ key: 'bench/*', branch: 'main', test: 'percentage', upper_boundary: 0.2 });
    await threshold({ key: 'bench/a', branch: '*', test: 'percentage', upper_boundary: 0.3 });
    const payload = { 'bench/a': 10, 'bench/b': 10, other: 10 };
    const directions = {
      directions: { 'bench/a': 'lower', 'bench/b': 'lower', other: 'lower', plain: 'lower' },
    };
    await ingest(on('main', 'm0', { ...payload, plain: 1, ...directions }));
    const judged = await ingest(on('main', 'm1', { ...payload, plain: 1, ...directions }));
    const limits = Object.fromEntries(
      (await compare(judged)).keys.map((k) => [k.key, k.upper_limit]),
    );
    expect(limits['bench/a']).toBeCloseTo(13, 12);
    expect(limits['bench/b']).toBeCloseTo(12, 12);
    expect(limits.other).toBeCloseTo(15, 12);
    // No threshold of its own: the default t_test (which needs 8 values).
    expect((await compare(judged)).keys.find((k) => k.key === 'plain')).toMatchObject({
      test: 't_test',
      verdict: 'no-baseline',
    });
    await post(VerdictPaths.updateProject, { projectId: me.projectId, default_threshold: false });
    const next = await ingest(on('main', 'm2', { plain: 1, ...directions }));
    expect((await compare(next)).keys).toEqual([
      expect.objectContaining({
        key: 'plain',
        test: null,
        verdict: 'no-baseline',
        sample_size: null,
      }),
    ]);
  });

  // The Action compares the record it has just stored. Judging's catch-up must not stop after
  // one page of its queue: on PostgreSQL a page was 64 queue rows (one per ingest statement), so
  // after a burst of single requests that judging could not keep up with (held here by its lock)
  // the newest records stayed unjudged and compare said 404.
  it('compares at once the newest of 130 records sent one request each during a backlog', async () => {
    const release = await holdJudging(server);
    let last = '';
    for (let i = 0; i < 130; i++) {
      last = await ingest(on('main', `c${i}`, { build_ms: 100 + (i % 3) }));
    }
    await release();
    const comparison = await compare(last);
    expect(comparison.keys.map((k) => k.key)).toEqual(['build_ms']);
  });

  it('compare by commit, an unknown record is 404, and a missing projectId is named', async () => {
    const id = await ingest(on('main', 'abc', { t: 1 }));
    const byCommit = await get(`${VerdictPaths.compare}?projectId=${me.projectId}&commit=abc`);
    expect(byCommit.json().record).toEqual({ id, branch: 'main', commit: 'abc' });
    expect(byCommit.json().keys).toEqual([
      {
        key: 't',
        unit: null,
        direction: null,
        value: 1,
        baseline: null,
        lower_limit: null,
        upper_limit: null,
        change: null,
        test: null,
        sample_size: null,
        verdict: 'no-direction',
        base: { branch: null, commit: null },
      },
    ]);
    expect(
      (await get(`${VerdictPaths.compare}?projectId=${me.projectId}&commit=zzz`)).statusCode,
    ).toBe(404);
    const missing = await get(`${VerdictPaths.compare}?record=${id}`);
    expect(missing.json().error).toBe(SpecError.projectIdRequired);
  });
});

describe('alerts', () => {
  it('a regression makes one alert; dismissed, listed by status, made active again', async () => {
    await threshold({ key: 't', branch: '*', test: 'percentage', upper_boundary: 0.1 });
    const declared = { directions: { t: 'lower' } };
    await ingest(on('main', 'm0', { t: 100, ...declared }));
    const bad = await ingest(on('main', 'm1', { t: 200, ...declared }));
    await ingest(on('main', 'm2', { t: 150, ...declared }));
    const list = async (status: string) =>
      (await get(`${VerdictPaths.getAlerts}?projectId=${me.projectId}&status=${status}`)).json();
    const active = await list('active');
    expect(active).toEqual({
      alerts: [
        {
          id: expect.any(String),
          key: 't',
          branch: 'main',
          record_id: bad,
          commit: 'm1',
          value: 200,
          baseline: 100,
          limit: expect.closeTo(110, 12),
          side: 'upper',
          test: 'percentage',
          created_at: expect.any(String),
          status: 'active',
        },
      ],
      nextCursor: null,
    });
    const [alert] = active.alerts;
    const dismissed = await post(VerdictPaths.dismissAlert, { id: alert.id });
    expect(dismissed.json().alert).toEqual({ ...alert, status: 'dismissed' });
    expect((await list('active')).alerts).toEqual([]);
    expect((await list('dismissed')).alerts).toEqual([{ ...alert, status: 'dismissed' }]);
    const other = await server.account();
    expect((await post(VerdictPaths.dismissAlert, { id: alert.id }, other.apiKey)).statusCode).toBe(
      404,
    );
    await post(VerdictPaths.reactivateAlert, { id: alert.id });
    expect((await list('all')).alerts).toEqual([alert]);
    expect(
      (await get(`${VerdictPaths.getAlerts}?projectId=${me.projectId}&status=open`)).json().error,
    ).toBe('status is invalid.');
  });

  it('pages newest first', async () => {
    await threshold({ key: 't', branch: '*', test: 'static', upper_boundary: 10 });
    await ingest(on('main', 'm0', { t: 1, directions: { t: 'lower' } }));
    for (let i = 1; i <= 5; i += 1) await ingest(on('main', `m${i}`, { t: 10 + i }));
    const first = (await get(`${VerdictPaths.getAlerts}?projectId=${me.projectId}&limit=2`)).json();
    expect(first.alerts.map((a: { value: number }) => a.value)).toEqual([15, 14]);
    const rest = (
      await get(
        `${VerdictPaths.getAlerts}?projectId=${me.projectId}&limit=3&cursor=${first.nextCursor}`,
      )
    ).json();
    expect(rest.alerts.map((a: { value: number }) => a.value)).toEqual([13, 12, 11]);
    expect(rest.nextCursor).toBeNull();
  });
});

describe('change points', () => {
  it('finds a change of level on the default branch only, naming its first record', async () => {
    // A deterministic series with a small wobble: 40 values around 100, then 40 around 150.
    const ids: string[] = [];
    for (let i = 0; i < 80; i += 1) {
      const level = i < 40 ? 100 : 150;
      ids.push(await ingest(on('main', `c${i}`, { t: level + ((i * 7) % 5) - 2 })));
      // The same on another branch: not the default branch's series.
      if (i % 4 === 0) await ingest(on('topic', `x${i}`, { t: 1000 * (i % 2) }));
    }
    const res = await get(`${VerdictPaths.getChangePoints}?projectId=${me.projectId}&key=t`);
    const { change_points } = res.json();
    expect(change_points).toHaveLength(1);
    const [point] = change_points;
    const index = ids.indexOf(point.record_id);
    expect(Math.abs(index - 40)).toBeLessThanOrEqual(2);
    expect(point.commit).toBe(`c${index}`);
    expect(point.change).toBeCloseTo(point.after_mean / point.before_mean - 1, 12);
    expect(point.after_mean / point.before_mean).toBeGreaterThan(1.4);
    expect(point.p_value).toBeLessThanOrEqual(0.01);
    // Outside the range asked: none.
    const early = await get(
      `${VerdictPaths.getChangePoints}?projectId=${me.projectId}&key=t&to=${encodeURIComponent(new Date(Date.parse(point.at)).toISOString())}`,
    );
    expect(early.json().change_points).toEqual([]);
  });
});
