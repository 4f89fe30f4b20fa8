import { describe, expect, it } from 'vitest';
import { SpecError } from '../../../contract/error-texts.js';
import { Paths } from '../../../contract/paths.js';
import type { TestList, TestRow } from '../../../contract/tests/test-queries.js';
import { FormClient } from '../../helpers/form-client.js';
import { PLANTED, seedTests } from '../../helpers/seed-tests.js';
import { eachTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/**
 * get-tests in name order (the names first, then only the page's tests analysed) and ordered by
 * any column, and the Tests view's "All tests" tab and sortable columns, on both backends.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started), {
  RATE_LIMIT_INGEST_PER_MINUTE: '0',
  RATE_LIMIT_OTHER_PER_MINUTE: '0',
});

const NAMES = Object.keys(PLANTED).sort();

async function list(query: Record<string, string>): Promise<TestList> {
  const params = new URLSearchParams({ projectId: me.projectId, ...query });
  const res = await server.call('GET', `${Paths.getTests}?${params}`, { key: me.apiKey });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as TestList;
}

/** Every page of a list, following nextCursor. */
async function all(query: Record<string, string>): Promise<TestRow[]> {
  const rows: TestRow[] = [];
  let cursor: string | null = null;
  do {
    const page: TestList = await list({ ...query, ...(cursor ? { cursor } : {}) });
    rows.push(...page.tests);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return rows;
}

/** A run on another branch with a test of its own. */
async function featureRun() {
  const res = await server.call('POST', Paths.ingestTests, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      buildId: 'f1',
      commit: 'f1',
      branch: 'feature',
      cases: [
        { suite: 'planted', name: 'feature only', duration_ms: 3, status: 'failed' },
        { suite: 'planted', name: 'flips', duration_ms: 7, status: 'passed' },
      ],
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('get-tests in name order and by column', () => {
  it('sort=name pages every test A to Z with the same lines as the full analysis', async () => {
    await seedTests(server, me);
    const named = await all({ sort: 'name', limit: '2' });
    expect(named.map((t) => t.name)).toEqual(NAMES);
    // The names-first path analyses each page's tests alone: their lines are the full
    // analysis's (sort=slowest by the flaky score analyses every result).
    const full = new Map(
      (await all({ sort: 'slowest', order: 'flaky_score' })).map((t) => [t.id, t]),
    );
    for (const row of named) expect(row).toEqual(full.get(row.id));
    expect(named.find((t) => t.name === 'flips')).toMatchObject({ flaky: true, failed: 2 });
    const backwards = await all({ sort: 'name', dir: 'desc', limit: '3' });
    expect(backwards.map((t) => t.name)).toEqual([...NAMES].reverse());
    const searched = await all({ sort: 'name', q: 'STEADY', dir: 'desc' });
    expect(searched.map((t) => t.name)).toEqual(['steady 2', 'steady 1']);
  });

  it('sort=name lists the tests of the branch asked for, and of every branch without one', async () => {
    await seedTests(server, me);
    await featureRun();
    // Then main again: main's runs are not all the runs between its first and its last.
    const res = await server.call('POST', Paths.ingestTests, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        buildId: 'b9',
        commit: 'c9',
        branch: 'main',
        cases: [{ suite: 'planted', name: 'flips', duration_ms: 9, status: 'passed' }],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await all({ sort: 'name' })).map((t) => t.name)).toEqual(
      [...NAMES, 'feature only'].sort(),
    );
    const main = await all({ sort: 'name', branch: 'main' });
    expect(main.map((t) => t.name)).toEqual(NAMES);
    expect(main.find((t) => t.name === 'flips')?.runs).toBe(9);
    // The headline counts the same tests.
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const view = await browser.get(`/dashboard/projects/${me.projectId}/tests?branch=main`);
    expect(view.body).toMatch(/Tests<\/p><p class="stat-value">5</);
    const everywhere = await browser.get(`/dashboard/projects/${me.projectId}/tests?tab=all`);
    expect(everywhere.body).toMatch(/Tests<\/p><p class="stat-value">6</);
    const feature = await all({ sort: 'name', branch: 'feature' });
    expect(feature.map((t) => [t.name, t.runs, t.failed])).toEqual([
      ['feature only', 1, 1],
      ['flips', 1, 0],
    ]);
  });

  it('order reorders the tests a sort chooses; without a value last; ties by name', async () => {
    await seedTests(server, me);
    const failing = await all({ sort: 'failing', order: 'name' });
    expect(failing.map((t) => t.name)).toEqual(['broken', 'flips']);
    const fewest = await all({ sort: 'failing', order: 'failure_rate', dir: 'asc' });
    expect(fewest.map((t) => t.name)).toEqual(['flips', 'broken']);
    // p50 smallest first: each steady test and flips and broken ran 10-17 ms (a tie: by name),
    // slow 4,000 ms and more.
    const quickest = await all({ sort: 'slowest', order: 'p50', dir: 'asc' });
    expect(quickest.map((t) => t.name)).toEqual([
      'broken',
      'flips',
      'steady 1',
      'steady 2',
      'slow',
    ]);
    const byRuns = await all({ sort: 'name', order: 'runs', limit: '2' });
    expect(byRuns.map((t) => t.name)).toEqual(NAMES);
    // last_flaky_at: only flips flaked, the others have none and come last, by name.
    const flakedLast = await all({ sort: 'name', order: 'last_flaky_at' });
    expect(flakedLast.map((t) => t.name)).toEqual([
      'flips',
      'broken',
      'slow',
      'steady 1',
      'steady 2',
    ]);
    const scored = await all({ sort: 'failing', order: 'flaky_score' });
    expect(scored.map((t) => t.name)).toEqual(['flips', 'broken']);
  });

  it('refuses an unknown order or direction, as any bad query', async () => {
    for (const bad of ['order=speed', 'dir=up', 'order=p95&dir=']) {
      const res = await server.call(
        'GET',
        `${Paths.getTests}?projectId=${me.projectId}&sort=name&${bad}`,
        { key: me.apiKey },
      );
      expect(res.statusCode, bad).toBe(400);
      expect((res.json() as { error: string }).error).toBe(SpecError.invalidBody);
    }
  });
});

/** The test names the page's list links to, in order. */
const listed = (html: string) =>
  [
    ...html.matchAll(
      /<a href="\/dashboard\/projects\/[^/]+\/tests\/[^"]+">planted › ([^<]+)<\/a>/g,
    ),
  ].map((m) => m[1]);

/** The head of a column: its aria-sort and its link. */
function head(html: string, label: string) {
  const match = new RegExp(
    `<th scope="col"(?: aria-sort="(\\w+)")?><a href="([^"]+)">${label}(?: [▲▼])?</a></th>`,
  ).exec(html);
  expect(match, label).not.toBeNull();
  return { sort: match?.[1], href: (match?.[2] ?? '').replaceAll('&amp;', '&') };
}

describe("the Tests view's All tests tab and sortable columns", () => {
  it('lists every test by name and orders any tab by a column, both ways', async () => {
    await seedTests(server, me);
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const path = `/dashboard/projects/${me.projectId}/tests`;

    const everything = await browser.get(`${path}?tab=all`);
    expect(everything.statusCode).toBe(200);
    expect(everything.body).toContain('All tests');
    expect(listed(everything.body)).toEqual(NAMES);
    expect(head(everything.body, 'Test').sort).toBe('ascending');

    const slowest = await browser.get(`${path}?tab=slowest`);
    expect(listed(slowest.body)[0]).toBe('slow');
    expect(head(slowest.body, 'p95').sort).toBe('descending');
    expect(head(slowest.body, 'Test').sort).toBeUndefined();
    // The Test column: A to Z, then (its head again) Z to A.
    const byName = head(slowest.body, 'Test').href;
    expect(byName).toContain('tab=slowest');
    expect(byName).toContain('order=name&dir=asc');
    const aToZ = await browser.get(byName);
    expect(listed(aToZ.body)).toEqual(NAMES);
    expect(head(aToZ.body, 'p95').sort).toBeUndefined();
    const zToA = await browser.get(head(aToZ.body, 'Test').href);
    expect(listed(zToA.body)).toEqual([...NAMES].reverse());
    expect(head(zToA.body, 'Test').sort).toBe('descending');
    // The filters keep the order; another tab takes its own.
    expect(zToA.body).toContain('<input type="hidden" name="order" value="name"/>');
    const tab = /<a class="button small secondary" href="([^"]+)"[^>]*>Most failing<\/a>/.exec(
      zToA.body,
    )?.[1] as string;
    expect(tab).not.toContain('order=');
    const failing = await browser.get(tab.replaceAll('&amp;', '&'));
    expect(listed(failing.body)).toEqual(['broken', 'flips']);
    const fewest = await browser.get(head(failing.body, 'Failure rate').href);
    expect(listed(fewest.body)).toEqual(['flips', 'broken']);

    for (const bad of ['?order=speed', '?dir=sideways']) {
      const res = await browser.get(`${path}${bad}`);
      expect(res.statusCode, bad).toBe(400);
    }
  });
});
