import { beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { FormClient } from '../helpers/form-client.js';
import { storeEvent, storeMetric } from '../helpers/seed-records.js';
import { storeTestRun } from '../helpers/seed-tests.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * The dashboard's data of a project (docs/operations.md, Storage use; docs/export.md): storage
 * use per project, the retention form, and the export for the signed-in owner, on the backend
 * of the Vitest project.
 */

let server: TestServer;
let me: TestAccount;
let browser: FormClient;
eachTestServer((started) => ({ server, me } = started));
beforeEach(async () => {
  browser = new FormClient(server);
  await browser.signIn(me.apiKey);
});

const api = (method: 'GET' | 'POST', url: string, who: TestAccount = me, body?: unknown) =>
  server.call(method, url, { key: who.apiKey, body });
const dataOf = (projectId: string) => `/dashboard/projects/${projectId}/data`;
const retentionOf = async () =>
  (await api('GET', `${Paths.getRetention}?projectId=${me.projectId}`)).json().retentionDays;
const errorOf = (html: string, id: string) =>
  new RegExp(`<p class="error" id="${id}-error">([^<]*)</p>`).exec(html)?.[1];

/** `events` events, as many metric records, and a test run of `tests` cases. */
async function seed(projectId: string, events: number, tests: number) {
  const start = Date.UTC(2026, 4, 1);
  for (let i = 0; i < events; i += 1) {
    await storeEvent(server, projectId, start + i, 'build', { status: 'success', n: i });
    await storeMetric(server, projectId, start + i, { duration_ms: i, branch: 'main' });
  }
  const cases = Array.from({ length: tests }, (_, i) => ({
    suite: 's',
    name: `t${i}`,
    duration_ms: i,
    status: 'passed' as const,
  }));
  if (tests > 0) await storeTestRun(server, projectId, start, `b-${projectId}`, cases);
}

/** The projects page's storage cell of a project: its counts and its bytes in bytes. */
function storedOf(html: string, projectId: string) {
  const row = html.split('<tr>').find((tr) => tr.includes(`<code>${projectId}</code>`)) ?? '';
  const match =
    /<span class="stored">([\d,]+) events, ([\d,]+) metric records, ([\d,]+) test results: ([\d.]+) (bytes|B|kB|MB)<\/span>/.exec(
      row,
    );
  if (!match) return undefined;
  const n = (text: string | undefined) => Number(text?.replaceAll(',', ''));
  const scale = { bytes: 1, B: 1, kB: 1e3, MB: 1e6 }[match[5] as 'B' | 'kB' | 'MB'];
  return [n(match[1]), n(match[2]), n(match[3]), n(match[4]) * scale];
}

/** The storage use measurements the pages asked for, done (they run in the background). */
const measured = () => server.app.services.storageUse.settled();

describe('storage use', () => {
  it("shows each project's records and its share of the bytes, on the projects page and its data page", async () => {
    const small = (await api('POST', Paths.createProject, me, { name: 'small' })).json().id;
    const empty = (await api('POST', Paths.createProject, me, { name: 'empty' })).json().id;
    await seed(me.projectId, 100, 2_000);
    await seed(small, 10, 200);
    // Another account's records take their own share of the tables.
    const other = await server.account();
    await seed(other.projectId, 100, 2_000);

    // Never measured: the page says so and does not wait; the measurement follows.
    const first = await browser.get('/dashboard/projects');
    expect(first.statusCode).toBe(200);
    expect(storedOf(first.body, me.projectId)).toBeUndefined();
    expect(first.body).toContain('<span class="muted">being measured</span>');
    await measured();
    const page = await browser.get('/dashboard/projects');
    expect(page.statusCode).toBe(200);
    const big = storedOf(page.body, me.projectId);
    const little = storedOf(page.body, small);
    expect(big?.slice(0, 3)).toEqual([100, 100, 2_000]);
    expect(little?.slice(0, 3)).toEqual([10, 10, 200]);
    expect(storedOf(page.body, empty)).toEqual([0, 0, 0, 0]);
    // Events and metrics alone take bytes too (on PostgreSQL, in their monthly partitions).
    const recordsOnly = (await api('POST', Paths.createProject, me, { name: 'no tests' })).json()
      .id;
    await seed(recordsOnly, 50, 0);
    await browser.get('/dashboard/projects');
    await measured();
    const noTests = storedOf((await browser.get('/dashboard/projects')).body, recordsOnly);
    expect(noTests?.slice(0, 3)).toEqual([50, 50, 0]);
    expect(noTests?.[3]).toBeGreaterThan(0);
    // Ten times the rows, about ten times the bytes (formatting keeps two or three digits).
    const ratio = (big?.[3] ?? 0) / (little?.[3] ?? 1);
    expect(ratio).toBeGreaterThan(8);
    expect(ratio).toBeLessThan(12);
    expect(little?.[3]).toBeGreaterThan(10 * 2 * 50 + 200 * 10);
    expect(page.body).toContain(`href="${dataOf(me.projectId)}"`);
    // The project's own page leads there too.
    expect((await browser.get(`/dashboard/projects/${me.projectId}`)).body).toContain(
      `<a href="${dataOf(me.projectId)}">Data, retention and export</a>`,
    );

    // The data page: the same counts, the pinned records, the export's links.
    const pinned = (await api('GET', `${Paths.getEvents}?projectId=${me.projectId}&limit=2`)).json()
      .events as { id: string }[];
    for (const event of pinned) {
      const res = await api('POST', Paths.pinRecord, me, {
        projectId: me.projectId,
        kind: 'event',
        id: event.id,
        pinned: true,
      });
      expect(res.statusCode).toBe(200);
    }
    // The pins outdate the measurement: the page shows it as it was, and has it measured again.
    const before = await browser.get(dataOf(me.projectId));
    expect(before.statusCode).toBe(200);
    expect(before.body).toContain('<td>Pinned records</td><td>0</td>');
    await measured();
    const data = await browser.get(dataOf(me.projectId));
    expect(data.statusCode).toBe(200);
    expect(data.body).toContain('<td>Test results</td><td>2,000</td>');
    expect(data.body).toContain('<td>Pinned records</td><td>2</td>');
    expect(data.body).toContain('2 pinned records are never deleted.');
    for (const kind of ['events', 'metrics', 'records', 'tests']) {
      for (const format of ['ndjson', 'csv']) {
        expect(data.body).toContain(
          `href="/dashboard/projects/${me.projectId}/export?kind=${kind}&amp;format=${format}"`,
        );
      }
    }
    // Another account's project is the 404 page.
    expect((await browser.get(dataOf(other.projectId))).statusCode).toBe(404);
  }, 60_000);

  it('shows the last measurement with its time and does not count on each visit', async () => {
    await seed(me.projectId, 10, 0);
    const never = await browser.get(dataOf(me.projectId));
    expect(never.statusCode).toBe(200);
    expect(never.body).toContain('Being measured: reload the page in a moment.');
    expect(never.body).not.toContain('<td>Pinned records</td>');
    const asked = Date.now();
    await measured();
    const done = Date.now();
    const shown = await browser.get(dataOf(me.projectId));
    expect(shown.body).toContain('<td>Events</td><td>10</td>');
    const time = /Measured (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(shown.body)?.[1];
    const minute = (t: number) => new Date(t).toISOString().slice(0, 16).replace('T', ' ');
    expect([minute(asked), minute(done)]).toContain(time);

    // More records: the page keeps showing the measurement (younger than its maximum age)
    // instead of counting them again, on both pages.
    await seed(me.projectId, 5, 0);
    const again = await browser.get(dataOf(me.projectId));
    expect(again.body).toContain('<td>Events</td><td>10</td>');
    await measured();
    expect((await browser.get(dataOf(me.projectId))).body).toContain('<td>Events</td><td>10</td>');
    expect(storedOf((await browser.get('/dashboard/projects')).body, me.projectId)?.[0]).toBe(10);
  });
});

describe('retention form', () => {
  it('sets and clears the retention (post/redirect/get); a bad value is the page with the reason and changes nothing', async () => {
    expect((await browser.get(dataOf(me.projectId))).body).toContain(
      'Raw records are kept forever.',
    );
    const saved = await browser.post(`${dataOf(me.projectId)}/retention`, { retention_days: '30' });
    expect({ status: saved.statusCode, location: saved.headers.location }).toEqual({
      status: 303,
      location: `${dataOf(me.projectId)}?done=retention-saved`,
    });
    expect(await retentionOf()).toBe(30);
    const after = await browser.get(`${dataOf(me.projectId)}?done=retention-saved`);
    expect(after.body).toContain('Raw records are kept 30 days.');
    expect(after.body).toContain('The retention is saved');

    for (const [typed, reason] of [
      ['abc', 'Enter a whole number of days, or nothing to keep the records forever.'],
      ['1.5', 'Enter a whole number of days, or nothing to keep the records forever.'],
      ['0', 'Enter 1 to 36500 days, or nothing to keep the records forever.'],
      ['36501', 'Enter 1 to 36500 days, or nothing to keep the records forever.'],
    ] as const) {
      const refused = await browser.post(`${dataOf(me.projectId)}/retention`, {
        retention_days: typed,
      });
      expect(refused.statusCode, typed).toBe(400);
      expect(errorOf(refused.body, 'retention_days'), typed).toBe(reason);
      expect(refused.body).toContain(`value="${typed}"`);
      expect(await retentionOf()).toBe(30);
    }
    // Without the form's token: refused before anything is read.
    const forged = await browser.post(
      `${dataOf(me.projectId)}/retention`,
      { retention_days: '1' },
      { csrf: null },
    );
    expect(forged.statusCode).toBe(403);
    expect(await retentionOf()).toBe(30);
    // Another account's project: 404, nothing changed there.
    const other = await server.account();
    const foreign = await browser.post(`${dataOf(other.projectId)}/retention`, {
      retention_days: '5',
    });
    expect(foreign.statusCode).toBe(404);
    expect(
      (await api('GET', `${Paths.getRetention}?projectId=${other.projectId}`, other)).json()
        .retentionDays,
    ).toBeNull();

    await browser.get(dataOf(me.projectId));
    const cleared = await browser.post(`${dataOf(me.projectId)}/retention`, {
      retention_days: ' ',
    });
    expect(cleared.statusCode).toBe(303);
    expect(await retentionOf()).toBeNull();
  });
});

describe('export for the signed-in owner', () => {
  it('streams what GET /stats/export streams, with the same refusals', async () => {
    await seed(me.projectId, 30, 50);
    const path = `/dashboard/projects/${me.projectId}/export`;
    for (const query of ['kind=records', 'kind=tests&format=csv', 'kind=metrics&format=csv']) {
      const page = await browser.get(`${path}?${query}`);
      const viaApi = await api('GET', `${Paths.exportRecords}?projectId=${me.projectId}&${query}`);
      expect(page.statusCode, query).toBe(200);
      expect(page.headers['content-type']).toBe(viaApi.headers['content-type']);
      expect(page.headers['content-disposition']).toBe(viaApi.headers['content-disposition']);
      expect(page.body, query).toBe(viaApi.body);
      expect(page.body.length).toBeGreaterThan(1_000);
    }
    const bad = await browser.get(`${path}?kind=tables`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: expect.stringMatching(/^kind: /) });
    const backwards = await browser.get(
      `${path}?kind=events&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`,
    );
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json()).toEqual({ error: 'to: must be after from' });
    const unknown = await browser.get(`${path}?kind=tests&after=nosuch:line`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: expect.any(String) });

    const other = await server.account();
    await seed(other.projectId, 3, 0);
    const foreign = await browser.get(`/dashboard/projects/${other.projectId}/export?kind=events`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain('"status":"success"');
    // Without a session: to the sign-in page.
    const anonymous = await server.app.inject({ method: 'GET', url: `${path}?kind=events` });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/dashboard/sign-in');
  });
});
