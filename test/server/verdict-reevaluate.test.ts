import { describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import {
  type Alert,
  type ComparedKey,
  REEVALUATE_MAX_RECORDS,
  VerdictPaths,
} from '../../contract/verdicts.js';
import { storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Re-evaluation on both backends (docs/verdicts.md): POST /stats/reevaluate answers 202 with what
 * it queued; the judging worker then judges the stored values again under the current thresholds,
 * replacing their verdicts and alerts. The expected limits are computed here from the documented
 * definition (percentage: mean·(1 ∓ b) of the baseline values), not by the server's code.
 */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started));

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

const post = (path: string, body: unknown, key = me.apiKey) =>
  server.call('POST', path, { key, body });
const get = (path: string, key = me.apiKey) => server.call('GET', path, { key });

async function ingest(branch: string, commit: string, values: Record<string, number>, pr?: object) {
  const res = await post(Paths.ingestMetrics, {
    projectId: me.projectId,
    payload: {
      ...values,
      directions: { t: 'lower', u: 'lower' },
      ci: { branch, commit, ...(pr ? { pull_request: pr } : {}) },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as string;
}

async function compared(record: string, key = 't'): Promise<ComparedKey> {
  const res = await get(`${VerdictPaths.compare}?projectId=${me.projectId}&record=${record}`);
  expect(res.statusCode, res.body).toBe(200);
  const found = res.json().keys.find((k: ComparedKey) => k.key === key);
  expect(found, `${key} of ${record}`).toBeDefined();
  return found;
}

async function alerts(status = 'all'): Promise<Alert[]> {
  const res = await get(`${VerdictPaths.getAlerts}?projectId=${me.projectId}&status=${status}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().alerts;
}

/** Asks for a re-evaluation (202) and waits until the worker has finished it. */
async function reevaluate(body: Record<string, unknown> = {}) {
  const res = await post(VerdictPaths.reevaluate, { projectId: me.projectId, ...body });
  expect(res.statusCode, res.body).toBe(202);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const settings = await get(`${VerdictPaths.getProjectSettings}?projectId=${me.projectId}`);
    if (settings.json().reevaluations_queued === 0) break;
    if (Date.now() > deadline) throw new Error('the re-evaluation did not finish');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return res.json().reevaluation;
}

/** What percentage at `b` (both sides) says of `value` against `baseline` values, by definition. */
function percentageVerdict(value: number, baseline: readonly number[], b: number) {
  if (baseline.length === 0) {
    return { verdict: 'no-baseline', baseline: null, lower_limit: null, upper_limit: null };
  }
  const m = mean(baseline);
  const upper = m * (1 + b);
  const lower = m * (1 - b);
  // Lower is better: beyond the upper limit is worse.
  const verdict = value > upper ? 'regression' : value < lower ? 'improvement' : 'ok';
  return { verdict, baseline: m, lower_limit: lower, upper_limit: upper };
}

function expectJudged(actual: ComparedKey, expected: ReturnType<typeof percentageVerdict>) {
  expect(actual.verdict).toBe(expected.verdict);
  for (const field of ['baseline', 'lower_limit', 'upper_limit'] as const) {
    if (expected[field] === null) expect(actual[field]).toBeNull();
    else expect(actual[field]).toBeCloseTo(expected[field] as number, 9);
  }
}

describe('re-evaluation', () => {
  it('re-judges stored values under the current threshold, keeping each baseline (a pull request at its base)', async () => {
    const lenient = await post(VerdictPaths.createThreshold, {
      projectId: me.projectId,
      key: 't',
      branch: 'main',
      test: 'percentage',
      lower_boundary: 0.5,
      upper_boundary: 0.5,
    });
    expect(lenient.statusCode).toBe(201);
    const main = [100, 102, 98, 101, 99, 125, 80, 103];
    const ids: string[] = [];
    for (const [i, t] of main.entries()) ids.push(await ingest('main', `m${i}`, { t, u: t }));
    // A pull request whose base is m2: its baseline is main through m2, never later values.
    const pr = await ingest(
      'feature',
      'f1',
      { t: 112, u: 112 },
      {
        number: 7,
        target_branch: 'main',
        base_sha: 'm2',
      },
    );
    // As judged: nothing beyond 50 %.
    for (const id of ids.slice(1)) expect((await compared(id)).verdict).toBe('ok');
    expect(await alerts()).toEqual([]);

    const strict = await post(VerdictPaths.updateThreshold, {
      id: lenient.json().threshold.id,
      lower_boundary: 0.1,
      upper_boundary: 0.1,
    });
    expect(strict.statusCode).toBe(200);
    // A changed threshold does not rewrite history by itself.
    expect((await compared(ids[5] as string)).verdict).toBe('ok');

    const queued = await reevaluate({ key: 't' });
    expect(queued).toEqual({
      id: expect.any(String),
      projectId: me.projectId,
      key: 't',
      branch: null,
      from: null,
      to: null,
      records: main.length + 1,
      next_from: null,
    });

    for (const [i, t] of main.entries()) {
      expectJudged(await compared(ids[i] as string), percentageVerdict(t, main.slice(0, i), 0.1));
    }
    const prJudged = await compared(pr);
    expectJudged(prJudged, percentageVerdict(112, main.slice(0, 3), 0.1));
    expect(prJudged.base).toEqual({ branch: 'main', commit: 'm2' });
    // u was not asked for: still as judged then (its threshold is the default: too few values).
    expect((await compared(ids[5] as string, 'u')).verdict).toBe('no-baseline');

    // The regressions became alerts: 125 on main and 112 of the pull request, none announced.
    const raised = await alerts();
    expect(raised.map((a) => [a.record_id, a.key, a.side, a.status]).sort()).toEqual(
      [
        [ids[5], 't', 'upper', 'active'],
        [pr, 't', 'upper', 'active'],
      ].sort(),
    );
    const onMain = raised.find((a) => a.record_id === ids[5]) as Alert;
    expect(onMain.value).toBe(125);
    expect(onMain.baseline).toBeCloseTo(mean(main.slice(0, 5)), 9);
    expect(onMain.limit).toBeCloseTo(mean(main.slice(0, 5)) * 1.1, 9);
  });

  it('alerts follow the new verdicts: kept with their status, removed, created again', async () => {
    const created = await post(VerdictPaths.createThreshold, {
      projectId: me.projectId,
      key: '*',
      branch: '*',
      test: 'percentage',
      upper_boundary: 0.1,
    });
    const threshold = created.json().threshold.id as string;
    const history = [100, 100, 100, 100];
    for (const [i, t] of history.entries()) await ingest('main', `h${i}`, { t });
    const jump = await ingest('main', 'h4', { t: 130 });
    const [alert] = await alerts();
    expect(alert).toMatchObject({ record_id: jump, key: 't', limit: 110, status: 'active' });
    const dismissed = await post(VerdictPaths.dismissAlert, { id: alert?.id });
    expect(dismissed.statusCode).toBe(200);

    // Still a regression at 20 %: the same alert, still dismissed, with the new limit.
    await post(VerdictPaths.updateThreshold, { id: threshold, upper_boundary: 0.2 });
    await reevaluate({ branch: 'main' });
    expect(await alerts()).toEqual([{ ...alert, limit: 120, status: 'dismissed' }]);

    // No longer a regression at 50 %: the alert goes.
    await post(VerdictPaths.updateThreshold, { id: threshold, upper_boundary: 0.5 });
    await reevaluate();
    expect(await alerts()).toEqual([]);
    expect((await compared(jump)).verdict).toBe('ok');

    // A regression again: a new, active alert.
    await post(VerdictPaths.updateThreshold, { id: threshold, upper_boundary: 0.1 });
    await reevaluate();
    const [again] = await alerts();
    expect(again).toMatchObject({ record_id: jump, key: 't', limit: 110, status: 'active' });
    expect(again?.id).not.toBe(alert?.id);
  });

  it('queues only the records of its branch and time range', async () => {
    await ingest('main', 'a0', { t: 1 });
    await ingest('other', 'b0', { t: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const middle = new Date().toISOString();
    await ingest('main', 'a1', { t: 1 });
    await ingest('main', 'a2', { t: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const end = new Date().toISOString();
    await ingest('main', 'a3', { t: 1 });

    const onMain = await reevaluate({ branch: 'main' });
    expect(onMain.records).toBe(4);
    const range = await reevaluate({ branch: 'main', from: middle, to: end });
    expect(range).toMatchObject({ records: 2, from: middle, to: end, next_from: null });
    const none = await reevaluate({ branch: 'nowhere' });
    expect(none).toMatchObject({ id: null, records: 0 });
  });

  it('queues at most 10,000 records, the oldest, and says from when to ask again', async () => {
    // One more record than a request queues, stored a millisecond apart.
    const start = Date.parse('2026-10-01T00:00:00Z');
    const total = REEVALUATE_MAX_RECORDS + 1;
    for (let i = 0; i < total; i += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, total - i) }, (_, j) =>
          storeMetric(server, me.projectId, start + i + j, { t: i + j, ci: { branch: 'main' } }),
        ),
      );
    }
    const first = await post(VerdictPaths.reevaluate, { projectId: me.projectId });
    expect(first.statusCode, first.body).toBe(202);
    expect(first.json().reevaluation).toMatchObject({
      records: REEVALUATE_MAX_RECORDS,
      next_from: new Date(start + REEVALUATE_MAX_RECORDS).toISOString(),
    });
    // Answered once queued: re-judging 10,000 records takes the worker 100 batches, after it.
    const settings = await get(`${VerdictPaths.getProjectSettings}?projectId=${me.projectId}`);
    expect(settings.json().reevaluations_queued).toBe(1);
    const rest = await post(VerdictPaths.reevaluate, {
      projectId: me.projectId,
      from: first.json().reevaluation.next_from,
    });
    expect(rest.json().reevaluation).toMatchObject({ records: 1, next_from: null });
  }, 180_000);

  it('refuses bad input (naming the field, queuing nothing), an ingest-only key and a foreign project', async () => {
    await ingest('main', 'z0', { t: 1 });
    const bad = async (body: Record<string, unknown>, error: string) => {
      const res = await post(VerdictPaths.reevaluate, { projectId: me.projectId, ...body });
      expect({ status: res.statusCode, error: res.json().error }).toEqual({ status: 400, error });
    };
    await bad({ from: 'yesterday' }, 'from is invalid.');
    await bad({ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'to is invalid.');
    await bad({ key: '' }, 'key is invalid.');
    await bad({ branch: 7 }, 'branch is invalid.');
    await bad({ everything: true }, SpecError.invalidBody);
    const missing = await post(VerdictPaths.reevaluate, {});
    expect(missing.json().error).toBe(SpecError.projectIdRequired);
    const settings = await get(`${VerdictPaths.getProjectSettings}?projectId=${me.projectId}`);
    expect(settings.json().reevaluations_queued).toBe(0);

    const ingestOnly = await post(Paths.createApiKey, { scope: 'ingest' });
    const refused = await post(
      VerdictPaths.reevaluate,
      { projectId: me.projectId },
      ingestOnly.json().apiKey,
    );
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 403,
      body: { error: OwnError.ingestOnly },
    });
    const other = await server.account();
    const foreign = await post(VerdictPaths.reevaluate, { projectId: me.projectId }, other.apiKey);
    expect(foreign.statusCode).toBe(403);
  });
});
