import { describe, expect, it } from 'vitest';
import { Paths } from '../../../contract/paths.js';
import type { TestList } from '../../../contract/tests/test-queries.js';
import { FormClient } from '../../helpers/form-client.js';
import { RUNS, seedTests } from '../../helpers/seed-tests.js';
import { eachTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/** The Tests view and a test's page over HTTP, on both backends. */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started), {
  RATE_LIMIT_INGEST_PER_MINUTE: '0',
  RATE_LIMIT_OTHER_PER_MINUTE: '0',
});

const testsPath = () => `/dashboard/projects/${me.projectId}/tests`;

async function idOf(name: string): Promise<string> {
  const res = await server.call(
    'GET',
    `${Paths.getTests}?projectId=${me.projectId}&sort=name&q=${encodeURIComponent(name)}`,
    { key: me.apiKey },
  );
  return ((res.json() as TestList).tests.find((t) => t.name === name) as { id: string }).id;
}

/** The test names the page's list links to, in order. */
const listed = (html: string) =>
  [
    ...html.matchAll(
      /<a href="\/dashboard\/projects\/[^/]+\/tests\/[^"]+">planted › ([^<]+)<\/a>/g,
    ),
  ].map((m) => m[1]);

describe('the Tests pages', () => {
  it('lists flaky, failing and slowest tests, with a headline and a search', async () => {
    await seedTests(server, me);
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const project = await browser.get(`/dashboard/projects/${me.projectId}`);
    // With the project page's range (and branch, when it has one).
    expect(project.body).toContain(`href="/dashboard/projects/${me.projectId}/tests?range=30d"`);

    const flaky = await browser.get(testsPath());
    expect(flaky.statusCode).toBe(200);
    expect(flaky.headers['content-type']).toMatch(/^text\/html/);
    expect(listed(flaky.body)).toEqual(['flips']);
    // 5 tests; 34 of 40 results passed (flips failed twice, broken four times).
    expect(flaky.body).toMatch(/Tests<\/p><p class="stat-value">5</);
    expect(flaky.body).toContain('85 %');
    expect(flaky.body).toMatch(/Flaky tests<\/p><p class="stat-value">1</);
    expect(flaky.body).toContain(`${RUNS} run(s)`);

    const failing = await browser.get(`${testsPath()}?tab=failing`);
    // broken failed 4 of 8 (0.5), flips 2 of 8 (0.25).
    expect(listed(failing.body)).toEqual(['broken', 'flips']);
    expect(failing.body).toContain('50 %');
    const slowest = await browser.get(`${testsPath()}?tab=slowest`);
    expect(listed(slowest.body)[0]).toBe('slow');
    expect(listed(slowest.body)).toHaveLength(5);
    const search = await browser.get(`${testsPath()}?tab=slowest&q=STEADY`);
    expect(listed(search.body)).toEqual(['steady 1', 'steady 2']);

    for (const bad of ['?tab=oldest', '?range=forever', `?cursor=${'x'.repeat(10)}`]) {
      const res = await browser.get(`${testsPath()}${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it("shows a test's history, flaky commits and messages, and quarantines it from its page", async () => {
    await seedTests(server, me);
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const id = await idOf('flips');
    const path = `${testsPath()}/${id}`;
    const page = await browser.get(path);
    expect(page.statusCode).toBe(200);
    // One cell per run, oldest first: pass, fail, pass, pass, fail, pass, retry, pass.
    const cells = [...page.body.matchAll(/<rect [^>]*fill="(#[0-9A-F]+)"/g)].map((m) => m[1]);
    const P = '#2EA043';
    const F = '#CF222E';
    const R = '#BF8700';
    expect(cells).toEqual([P, F, P, P, F, P, R, P]);
    expect(page.body).toContain('flips failed: expected 1 to be 2');
    expect(page.body).toMatch(/<td>2<\/td>/);
    // Flaky commits as docs/tests.md defines them, over P F P P F P R P at c1-c8: the pass on
    // retry (c7) and, since a failure is followed by a pass and another failure, the runs whose
    // outcome differs from the run before (c2, c3, c5, c6; a pass on retry is a pass), newest first.
    expect([...page.body.matchAll(/<li><code>(c\d+)<\/code><\/li>/g)].map((m) => m[1])).toEqual([
      'c7',
      'c6',
      'c5',
      'c3',
      'c2',
    ]);
    const steady = await browser.get(`${testsPath()}/${await idOf('steady 1')}`);
    expect(steady.body).toContain('Not flaky: 8 run(s), failure rate 0 %.');
    expect(steady.body).toContain('No failure in these runs.');

    const noReason = await browser.post(`${path}/quarantine`, { quarantined: 'true', reason: ' ' });
    expect(noReason.statusCode).toBe(400);
    const added = await browser.post(`${path}/quarantine`, {
      quarantined: 'true',
      reason: 'flips on slow runners',
    });
    expect(added.statusCode).toBe(303);
    expect(added.headers.location).toBe(path);
    const list = await server.call('GET', `${Paths.getQuarantine}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(list.json().tests).toMatchObject([{ id, reason: 'flips on slow runners' }]);
    expect((await browser.get(path)).body).toContain('Take out of quarantine');
    expect((await browser.get(testsPath())).body).toContain('quarantined');
    const removed = await browser.post(`${path}/quarantine`, { quarantined: 'false' });
    expect(removed.statusCode).toBe(303);
    expect(
      (
        await server.call('GET', `${Paths.getQuarantine}?projectId=${me.projectId}`, {
          key: me.apiKey,
        })
      ).json().tests,
    ).toEqual([]);
    // Without the form's token: refused, nothing changes.
    const forged = await browser.post(
      `${path}/quarantine`,
      { quarantined: 'true', reason: 'x' },
      { csrf: null },
    );
    expect(forged.statusCode).toBe(403);
  });

  it('shows another account nothing: its project and tests are the 404 page', async () => {
    await seedTests(server, me);
    const id = await idOf('flips');
    const other = await server.account();
    const stranger = new FormClient(server);
    await stranger.signIn(other.apiKey);
    for (const path of [testsPath(), `${testsPath()}/${id}`, `${testsPath()}/no-such-test`]) {
      const res = await stranger.get(path);
      expect(res.statusCode, path).toBe(404);
      expect(res.body).not.toContain('flips');
    }
    // A valid form token of the stranger's own session (from a page of theirs).
    await stranger.get(`/dashboard/projects/${other.projectId}`);
    const post = await stranger.post(`${testsPath()}/${id}/quarantine`, {
      quarantined: 'true',
      reason: 'x',
    });
    expect(post.statusCode).toBe(404);
    const signedOut = await server.app.inject({ method: 'GET', url: testsPath() });
    expect(signedOut.statusCode).toBe(303);
  });
});
