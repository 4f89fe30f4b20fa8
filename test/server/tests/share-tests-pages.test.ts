import { describe, expect, it } from 'vitest';
import { Paths } from '../../../contract/paths.js';
import type { TestList } from '../../../contract/tests/test-queries.js';
import { RUNS, seedTests } from '../../helpers/seed-tests.js';
import { eachTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/**
 * The Tests view and a test's page on a share link (/share/<token>/tests…): read-only, with the
 * project page's range and branch, reaching only the token's project. Both backends.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started), {
  RATE_LIMIT_INGEST_PER_MINUTE: '0',
  RATE_LIMIT_OTHER_PER_MINUTE: '0',
});

const page = (path: string) => server.app.inject({ method: 'GET', url: path });

async function shareOf(projectId: string, key = me.apiKey): Promise<string> {
  const res = await server.call('POST', Paths.createShareLink, { key, body: { projectId } });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { token: string }).token;
}

async function idOf(name: string, projectId = me.projectId, key = me.apiKey): Promise<string> {
  const res = await server.call(
    'GET',
    `${Paths.getTests}?projectId=${projectId}&sort=name&q=${encodeURIComponent(name)}`,
    { key },
  );
  return ((res.json() as TestList).tests.find((t) => t.name === name) as { id: string }).id;
}

/** The test names a Tests view's list links to (under `path`), in order. */
const listed = (html: string, path: string) =>
  [...html.matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)]
    .filter((m) => (m[1] as string).startsWith(`${path}/`))
    .map((m) => m[2]);

/** Stores one run of one passing test in a project. */
async function storeOne(projectId: string, key: string, name: string) {
  const res = await server.call('POST', Paths.ingestTests, {
    key,
    body: {
      projectId,
      buildId: `only-${name}`,
      commit: 'a1',
      branch: 'main',
      cases: [{ suite: 'own', name, duration_ms: 5, status: 'passed' }],
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('the Tests pages on a share link', () => {
  it('are linked from the share page with its range and branch, read-only, as the owner sees them', async () => {
    await seedTests(server, me);
    const token = await shareOf(me.projectId);
    const share = `/share/${token}`;
    const project = await page(`${share}?range=7d&branch=main`);
    expect(project.statusCode).toBe(200);
    expect(project.body).toContain(`href="${share}/tests?range=7d&amp;branch=main"`);
    // The owner's other pages are not linked from a share link.
    expect(project.body).not.toContain('/series');

    const view = await page(`${share}/tests?range=7d&branch=main`);
    expect(view.statusCode).toBe(200);
    expect(view.headers['content-type']).toMatch(/^text\/html/);
    expect(view.headers['cache-control']).toBe('private, no-cache');
    expect(view.headers['referrer-policy']).toBe('no-referrer');
    expect(view.headers.etag).toBeDefined();
    expect(listed(view.body, `${share}/tests`)).toEqual(['planted › flips']);
    // 5 tests; 34 of 40 results passed; one flaky (seed-tests.ts).
    expect(view.body).toMatch(/Tests<\/p><p class="stat-value">5</);
    expect(view.body).toContain('85 %');
    expect(view.body).toMatch(/Flaky tests<\/p><p class="stat-value">1</);
    expect(view.body).toContain(`${RUNS} run(s)`);
    expect(view.body).toContain(`href="${share}?range=7d&amp;branch=main"`);
    // Read-only: no form that writes, no session, no dashboard navigation.
    expect(view.body).not.toContain('method="post"');
    expect(view.body).not.toContain('_csrf');
    expect(view.body).not.toContain('href="/dashboard');
    expect(view.body).toContain('Shared statistics (read-only)');
    const again = await page(`${share}/tests?range=7d&branch=main`);
    expect(again.body).toBe(view.body);

    // The tabs and the search, as on the owner's page.
    const failing = await page(`${share}/tests?tab=failing`);
    expect(listed(failing.body, `${share}/tests`)).toEqual(['planted › broken', 'planted › flips']);
    const search = await page(`${share}/tests?tab=slowest&q=STEADY`);
    expect(listed(search.body, `${share}/tests`)).toEqual([
      'planted › steady 1',
      'planted › steady 2',
    ]);
    // The branch filter: no run on another branch.
    const other = await page(`${share}/tests?branch=develop&tab=slowest`);
    expect(other.statusCode).toBe(200);
    expect(listed(other.body, `${share}/tests`)).toEqual([]);
    expect(other.body).toContain('No test ran in this range.');
    // The range filter: a custom range of days before the runs holds none of them.
    const before = await page(`${share}/tests?range=custom&from=2020-01-01&to=2020-01-31`);
    expect(before.statusCode).toBe(200);
    expect(before.body).toContain('No flaky test in this range.');

    for (const bad of ['?tab=oldest', '?range=forever', `?cursor=${'x'.repeat(10)}`]) {
      const res = await page(`${share}/tests${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it("shows a test's page read-only: its history and messages, quarantined or not, and no form", async () => {
    await seedTests(server, me);
    const token = await shareOf(me.projectId);
    const id = await idOf('flips');
    const quarantined = await server.call('POST', Paths.quarantineTest, {
      key: me.apiKey,
      body: { projectId: me.projectId, test: id, reason: 'flips on slow runners' },
    });
    expect(quarantined.statusCode).toBe(200);
    const path = `/share/${token}/tests/${id}`;
    const view = await page(`/share/${token}/tests`);
    expect(view.body).toContain(`href="${path}?range=30d&amp;tab=flaky"`);

    const res = await page(`${path}?range=30d`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    // One cell per run, oldest first: pass, fail, pass, pass, fail, pass, retry, pass.
    const cells = [...res.body.matchAll(/<rect [^>]*fill="(#[0-9A-F]+)"/g)].map((m) => m[1]);
    const P = '#2EA043';
    const F = '#CF222E';
    const R = '#BF8700';
    expect(cells).toEqual([P, F, P, P, F, P, R, P]);
    expect(res.body).toContain('flips failed: expected 1 to be 2');
    expect([...res.body.matchAll(/<li><code>(c\d+)<\/code><\/li>/g)].map((m) => m[1])).toEqual([
      'c7',
      'c6',
      'c5',
      'c3',
      'c2',
    ]);
    // It says the test is quarantined, and offers no way to change it.
    expect(res.body).toContain('<span class="pill off">Quarantined</span>');
    expect(res.body).not.toContain('method="post"');
    expect(res.body).not.toContain('Take out of quarantine');
    expect(res.body).not.toContain('Quarantine this test');
    expect(res.body).toContain(`href="/share/${token}/tests?range=30d&amp;tab=flaky"`);
    // A test that is not quarantined says nothing of it.
    const steady = await page(`/share/${token}/tests/${await idOf('steady 1')}`);
    expect(steady.body).toContain('Not flaky: 8 run(s), failure rate 0 %.');
    expect(steady.body).not.toContain('Quarantined');

    const unknown = await page(`/share/${token}/tests/no-such-test`);
    expect(unknown.statusCode).toBe(404);
    const tooLong = await page(`/share/${token}/tests/${'x'.repeat(65)}`);
    expect(tooLong.statusCode).toBe(404);
    expect((await page(`${path}?range=forever`)).statusCode).toBe(400);
    // Posting to a share page is not a way in.
    const post = await server.app.inject({
      method: 'POST',
      url: `${path}/quarantine`,
      payload: { quarantined: 'false' },
    });
    expect(post.statusCode).toBe(404);
    const list = await server.call('GET', `${Paths.getQuarantine}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(list.json().tests.map((t: { id: string }) => t.id)).toEqual([id]);
  });

  it("shows only the token's project: another project's tests are neither listed nor reachable", async () => {
    // Project B of another account has the planted tests; a second project of mine has its own.
    const other = await server.account();
    await seedTests(server, other);
    const second = (
      await server.call('POST', Paths.createProject, { key: me.apiKey, body: { name: 'second' } })
    ).json().id as string;
    await storeOne(second, me.apiKey, 'only in second');
    await storeOne(me.projectId, me.apiKey, 'only in mine');
    const token = await shareOf(me.projectId);
    const foreignIds = [
      await idOf('flips', other.projectId, other.apiKey),
      await idOf('steady 1', other.projectId, other.apiKey),
      await idOf('only in second', second),
    ];

    for (const tab of ['flaky', 'failing', 'slowest']) {
      const res = await page(`/share/${token}/tests?tab=${tab}`);
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('planted');
      expect(res.body).not.toContain('only in second');
      if (tab === 'slowest') {
        expect(listed(res.body, `/share/${token}/tests`)).toEqual(['own › only in mine']);
      }
    }
    expect((await page(`/share/${token}/tests?tab=slowest&q=planted`)).body).toContain(
      'No test ran in this range.',
    );
    for (const id of foreignIds) {
      const res = await page(`/share/${token}/tests/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.body).not.toContain('flips');
      expect(res.body).not.toContain('only in second');
    }
    // B's own share link shows B's tests: the 404s above are A's token, not a broken page.
    const theirs = await shareOf(other.projectId, other.apiKey);
    const flips = await page(`/share/${theirs}/tests/${foreignIds[0]}`);
    expect(flips.statusCode).toBe(200);
    expect(flips.body).toContain('<h1>flips</h1>');
  });

  it('is the 404 page for an unknown or revoked token', async () => {
    await seedTests(server, me);
    const token = await shareOf(me.projectId);
    const id = await idOf('flips');
    expect((await page(`/share/${token}/tests`)).statusCode).toBe(200);
    const unknown = await page('/share/cis_share_nope/tests');
    expect(unknown.statusCode).toBe(404);
    expect((await page(`/share/cis_share_nope/tests/${id}`)).statusCode).toBe(404);
    await server.call('POST', Paths.revokeShareLink, { key: me.apiKey, body: { token } });
    for (const path of [`/share/${token}/tests`, `/share/${token}/tests/${id}`]) {
      const res = await page(path);
      expect({ status: res.statusCode, body: res.body }).toEqual({
        status: 404,
        body: unknown.body,
      });
    }
  });
});
