import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { type Threshold, VerdictPaths } from '../../contract/verdicts.js';
import { FormClient } from '../helpers/form-client.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * "Series and thresholds" (/dashboard/projects/<id>/series) on both backends: each form does what
 * its API endpoint does, refuses what the API refuses (the reason beside the field, status 400,
 * nothing changed), and answers a change with a redirect to the page (PRG).
 */

let server: TestServer;
let me: TestAccount;
let browser: FormClient;
let page: string;

beforeEach(async () => {
  server = await startTestServer();
  me = await server.account();
  browser = new FormClient(server);
  await browser.signIn(me.apiKey);
  page = `/dashboard/projects/${me.projectId}/series`;
});
afterEach(() => server.close());

const api = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
  const res = await server.call(method, url, { key: me.apiKey, body });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
};
const thresholds = async (): Promise<Threshold[]> =>
  (await api('GET', `${VerdictPaths.getThresholds}?projectId=${me.projectId}`)).thresholds;
const keys = async () =>
  (await api('GET', `${Paths.getMetricKeys}?projectId=${me.projectId}`)).keys as {
    key: string;
    unit: string | null;
    direction: string | null;
  }[];

async function ingest(branch: string, commit: string, values: Record<string, unknown>) {
  await api('POST', Paths.ingestMetrics, {
    projectId: me.projectId,
    payload: { ...values, ci: { branch, commit } },
  });
}

/** The error shown for a control, as the page renders it (tied to it by id). */
const errorOf = (html: string, id: string) =>
  new RegExp(`<p class="error" id="${id}-error">([^<]*)</p>`).exec(html)?.[1];

const expectRedirect = (
  res: { statusCode: number; headers: Record<string, unknown> },
  done: string,
) =>
  expect({ status: res.statusCode, location: res.headers.location }).toEqual({
    status: 303,
    location: `${page}?done=${done}`,
  });

/** Every field of a threshold form, as text (empty: the field's default). */
const thresholdForm = (fields: Record<string, string>) => ({
  key: '',
  branch: '*',
  test: 't_test',
  lower_boundary: '',
  upper_boundary: '',
  min_sample_size: '',
  max_sample_size: '',
  window_seconds: '',
  ...fields,
});

describe('series', () => {
  it('lists each key with its unit and direction and saves only what the owner changed', async () => {
    await ingest('main', 'a', { build_ms: 1200, units: { build_ms: 'ms' } });
    const shown = await browser.get(page);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain('<code>build_ms</code>');
    expect(shown.body).toContain('value="ms"');

    const saved = await browser.post(page, {
      key: 'build_ms',
      unit: 'ms',
      shown_unit: 'ms',
      direction: 'lower',
      shown_direction: '',
    });
    expectRedirect(saved, 'series-saved');
    expect(await keys()).toMatchObject([{ key: 'build_ms', unit: 'ms', direction: 'lower' }]);
    expect((await browser.get(`${page}?done=series-saved`)).body).toContain(
      "The series' unit and direction are saved.",
    );
    // The unit was not changed on the page, so a record may still declare it; the direction is
    // the owner's now.
    await ingest('main', 'b', {
      build_ms: 1100,
      units: { build_ms: 's' },
      directions: { build_ms: 'higher' },
    });
    expect(await keys()).toMatchObject([{ key: 'build_ms', unit: 's', direction: 'lower' }]);
  });

  it('refuses a bad direction or a unit too long beside the field, changing nothing', async () => {
    await ingest('main', 'a', { t: 1 });
    await browser.get(page);
    const sideways = await browser.post(page, {
      key: 't',
      unit: 'ms',
      shown_unit: '',
      direction: 'sideways',
      shown_direction: '',
    });
    expect(sideways.statusCode).toBe(400);
    expect(errorOf(sideways.body, 'series-0-direction')).toBe('Choose one of the options.');
    expect(sideways.body).toContain('Nothing was changed');
    const long = await browser.post(page, {
      key: 't',
      unit: 'x'.repeat(33),
      shown_unit: '',
      direction: '',
      shown_direction: '',
    });
    expect(long.statusCode).toBe(400);
    expect(errorOf(long.body, 'series-0-unit')).toBe('At most 32 characters.');
    expect(await keys()).toMatchObject([{ key: 't', unit: null, direction: null }]);
  });
});

describe('thresholds', () => {
  it('creates, edits and deletes, as the API does', async () => {
    await browser.get(page);
    const created = await browser.post(
      `${page}/thresholds`,
      thresholdForm({ key: 'bench/*', branch: 'main', test: 'percentage', upper_boundary: '0.1' }),
    );
    expectRedirect(created, 'threshold-created');
    const [stored] = await thresholds();
    expect(stored).toMatchObject({
      key: 'bench/*',
      branch: 'main',
      test: 'percentage',
      lower_boundary: null,
      upper_boundary: 0.1,
      min_sample_size: null,
      max_sample_size: null,
      window_seconds: null,
    });
    const listed = await browser.get(page);
    expect(listed.body).toContain(`id="threshold-${stored?.id}-upper_boundary" value="0.1"`);

    const edited = await browser.post(`${page}/thresholds/update`, {
      id: stored?.id as string,
      ...thresholdForm({
        key: 'bench/*',
        branch: '*',
        test: 't_test',
        upper_boundary: '0.99',
        min_sample_size: '5',
        window_seconds: '86400',
      }),
    });
    expectRedirect(edited, 'threshold-saved');
    expect(await thresholds()).toEqual([
      {
        ...stored,
        branch: '*',
        test: 't_test',
        upper_boundary: 0.99,
        min_sample_size: 5,
        window_seconds: 86400,
      },
    ]);

    const deleted = await browser.post(`${page}/thresholds/delete`, { id: stored?.id as string });
    expectRedirect(deleted, 'threshold-deleted');
    expect(await thresholds()).toEqual([]);
  });

  it("refuses what the API refuses, with the API's reason beside the field, and changes nothing", async () => {
    await browser.get(page);
    const create = async (fields: Record<string, string>) => {
      const res = await browser.post(`${page}/thresholds`, thresholdForm(fields));
      expect(res.statusCode).toBe(400);
      return res.body;
    };
    // The model's rule, in the API's words (and the value as typed, kept in the form).
    const probability = await create({ key: 't', upper_boundary: '1.5' });
    expect(errorOf(probability, 'upper_boundary')).toBe(
      'upper_boundary must be a probability in [0.5, 1) for t_test.',
    );
    expect(probability).toContain('value="1.5"');
    expect(errorOf(await create({ key: 't', upper_boundary: 'ten' }), 'upper_boundary')).toBe(
      'Enter a number, or leave it empty.',
    );
    expect(errorOf(await create({ key: '', upper_boundary: '0.99' }), 'key')).toBe('Required.');
    expect(errorOf(await create({ key: 't', test: 'magic', upper_boundary: '1' }), 'test')).toMatch(
      /^test must be one of: static, percentage/,
    );
    expect(await thresholds()).toEqual([]);

    const stored = (
      await api('POST', VerdictPaths.createThreshold, {
        projectId: me.projectId,
        key: 't',
        branch: '*',
        test: 'percentage',
        upper_boundary: 0.2,
      })
    ).threshold as Threshold;
    await browser.get(page);
    const badEdit = await browser.post(`${page}/thresholds/update`, {
      id: stored.id,
      ...thresholdForm({ key: 't', test: 'z_score', upper_boundary: '0.2' }),
    });
    expect(badEdit.statusCode).toBe(400);
    expect(errorOf(badEdit.body, `threshold-${stored.id}-upper_boundary`)).toBe(
      'upper_boundary must be a probability in [0.5, 1) for z_score.',
    );
    expect(await thresholds()).toEqual([stored]);

    // Another account's threshold is not this page's: gone, and untouched.
    const other = await server.account();
    const foreign = (
      await server.call('POST', VerdictPaths.createThreshold, {
        key: other.apiKey,
        body: { projectId: other.projectId, key: 'x', branch: '*', test: 'iqr', upper_boundary: 1 },
      })
    ).json().threshold as Threshold;
    const gone = await browser.post(`${page}/thresholds/delete`, { id: foreign.id });
    expect(gone.statusCode).toBe(400);
    expect(gone.body).toContain('This threshold does not exist any more.');
    const theirs = await server.call(
      'GET',
      `${VerdictPaths.getThresholds}?projectId=${other.projectId}`,
      { key: other.apiKey },
    );
    expect(theirs.json().thresholds).toEqual([foreign]);
  });
});

describe('project settings', () => {
  it('sets the default branch, the default threshold and the alert webhook (never shown again)', async () => {
    const settings = async () =>
      api('GET', `${VerdictPaths.getProjectSettings}?projectId=${me.projectId}`);
    await browser.get(page);
    const webhook = 'https://discord.com/api/webhooks/123456789012345678/hook-TOKEN_abcdefghijkl';
    const saved = await browser.post(`${page}/settings`, {
      default_branch: 'trunk',
      chat_webhook: webhook,
    });
    expectRedirect(saved, 'verdict-settings-saved');
    expect(await settings()).toMatchObject({
      default_branch: 'trunk',
      default_branch_set: true,
      default_threshold: false,
      chat_webhook: true,
    });
    const shown = await browser.get(page);
    expect(shown.body).not.toContain('hook-TOKEN');
    expect(shown.body).toContain('One is set (it is never shown again)');

    const bad = await browser.post(`${page}/settings`, {
      default_branch: 'trunk',
      default_threshold: 'on',
      chat_webhook: 'https://example.com/not-discord',
    });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad.body, 'chat_webhook')).toBe('chat_webhook must be a Discord webhook URL.');
    expect(await settings()).toMatchObject({ default_threshold: false, chat_webhook: true });

    await browser.get(page);
    const back = await browser.post(`${page}/settings`, {
      default_branch: '',
      default_threshold: 'on',
      remove_chat_webhook: 'on',
    });
    expectRedirect(back, 'verdict-settings-saved');
    expect(await settings()).toMatchObject({
      default_branch: 'main',
      default_branch_set: false,
      default_threshold: true,
      chat_webhook: false,
    });
  });
});

describe('alerts and re-evaluation', () => {
  it('lists active alerts, dismisses and re-activates them', async () => {
    await api('POST', VerdictPaths.createThreshold, {
      projectId: me.projectId,
      key: 't',
      branch: '*',
      test: 'percentage',
      upper_boundary: 0.1,
    });
    for (const [i, t] of [100, 100, 100, 150].entries()) {
      await ingest('main', `c${i}`, { t, directions: { t: 'lower' } });
    }
    const [alert] = (await api('GET', `${VerdictPaths.getAlerts}?projectId=${me.projectId}`))
      .alerts;
    expect(alert).toMatchObject({ key: 't', value: 150, limit: 110, status: 'active' });
    const shown = await browser.get(page);
    expect(shown.body).toContain(`<code>c3</code>`);
    expect(shown.body).toContain('No dismissed alerts.');

    expectRedirect(
      await browser.post(`${page}/alerts/dismiss`, { id: alert.id }),
      'alert-dismissed',
    );
    const all = async () =>
      (await api('GET', `${VerdictPaths.getAlerts}?projectId=${me.projectId}&status=all`)).alerts;
    expect((await all()).map((a: { status: string }) => a.status)).toEqual(['dismissed']);
    expect((await browser.get(page)).body).toContain('No active alerts.');
    expectRedirect(
      await browser.post(`${page}/alerts/reactivate`, { id: alert.id }),
      'alert-reactivated',
    );
    expect((await all()).map((a: { status: string }) => a.status)).toEqual(['active']);
    const unknown = await browser.post(`${page}/alerts/dismiss`, { id: 'nope' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('This alert does not exist any more.');

    // An alert of another project of the same account is not this page's: untouched.
    const second = (await api('POST', Paths.createProject, { name: 'second' })).id as string;
    await api('POST', VerdictPaths.createThreshold, {
      projectId: second,
      key: 't',
      branch: '*',
      test: 'static',
      upper_boundary: 10,
    });
    // A static threshold still wants one baseline value (min_sample_size 1).
    for (const [i, t] of [5, 50].entries()) {
      await api('POST', Paths.ingestMetrics, {
        projectId: second,
        payload: { t, directions: { t: 'lower' }, ci: { branch: 'main', commit: `s${i}` } },
      });
    }
    const [theirs] = (await api('GET', `${VerdictPaths.getAlerts}?projectId=${second}`)).alerts;
    expect(theirs).toMatchObject({ key: 't', value: 50, limit: 10, status: 'active' });
    await browser.get(page);
    const elsewhere = await browser.post(`${page}/alerts/dismiss`, { id: theirs.id });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.body).toContain('This alert does not exist any more.');
    expect(
      (await api('GET', `${VerdictPaths.getAlerts}?projectId=${second}`)).alerts.map(
        (a: { status: string }) => a.status,
      ),
    ).toEqual(['active']);
  });

  it('re-evaluates under the current thresholds; refuses a bad range, queuing nothing', async () => {
    const threshold = (
      await api('POST', VerdictPaths.createThreshold, {
        projectId: me.projectId,
        key: 't',
        branch: '*',
        test: 'percentage',
        upper_boundary: 0.5,
      })
    ).threshold as Threshold;
    const history = [100, 104, 96, 130];
    for (const [i, t] of history.entries()) {
      await ingest('main', `r${i}`, { t, directions: { t: 'lower' } });
    }
    await api('POST', VerdictPaths.updateThreshold, { id: threshold.id, upper_boundary: 0.2 });
    await browser.get(page);
    const settings = async () =>
      api('GET', `${VerdictPaths.getProjectSettings}?projectId=${me.projectId}`);

    const bad = await browser.post(`${page}/reevaluate`, {
      only_key: '',
      only_branch: '',
      from: 'soon',
    });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad.body, 'from')).toMatch(/^Enter a date and time with its zone/);
    expect((await settings()).reevaluations_queued).toBe(0);

    const queued = await browser.post(`${page}/reevaluate`, {
      only_key: 't',
      only_branch: 'main',
      from: '',
      to: '',
    });
    expectRedirect(queued, 'reevaluation-queued');
    const deadline = Date.now() + 15_000;
    while ((await settings()).reevaluations_queued > 0) {
      if (Date.now() > deadline) throw new Error('the re-evaluation did not finish');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // 130 against the mean of 100, 104, 96 (100) at 20 %: beyond 120, by definition.
    const baseline = (100 + 104 + 96) / 3;
    const [alert] = (await api('GET', `${VerdictPaths.getAlerts}?projectId=${me.projectId}`))
      .alerts;
    expect(alert).toMatchObject({ key: 't', value: 130, side: 'upper', status: 'active' });
    expect(alert.limit).toBeCloseTo(baseline * 1.2, 9);
  });

  it('is the 404 page for another account, and refuses a form without its token', async () => {
    const other = await server.account();
    await browser.get(page);
    const foreign = await browser.get(`/dashboard/projects/${other.projectId}/series`);
    expect(foreign.statusCode).toBe(404);
    const post = await browser.post(
      `/dashboard/projects/${other.projectId}/series/thresholds`,
      thresholdForm({ key: 't', upper_boundary: '0.99' }),
    );
    expect(post.statusCode, post.body).toBe(404);
    const theirs = await server.call(
      'GET',
      `${VerdictPaths.getThresholds}?projectId=${other.projectId}`,
      { key: other.apiKey },
    );
    expect(theirs.json().thresholds).toEqual([]);

    await browser.get(page);
    const tokenless = await browser.post(
      `${page}/thresholds`,
      thresholdForm({ key: 't', upper_boundary: '0.99' }),
      { csrf: null },
    );
    expect(tokenless.statusCode).toBe(403);
    expect(await thresholds()).toEqual([]);
  });
});
