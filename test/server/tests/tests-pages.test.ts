import { describe, expect, it } from 'vitest';
import { Paths } from '../../../contract/paths.js';
import type { TestList } from '../../../contract/tests/test-queries.js';
import { FormClient } from '../../helpers/form-client.js';
import { type Outcome, RUNS, seedTests, storeTestRun } from '../../helpers/seed-tests.js';
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

const DAY = 86_400_000;

/** A run of the two periods' history: when, where, and each test's outcome (P unless named). */
interface PlantedRun {
  daysAgo: number;
  branch: string;
  commit: string;
  outcomes: Record<string, Outcome>;
}

const NAMES = ['retried', 'rerun', 'dev retried', 'crossing', 'flipper', 'steady'];

/**
 * Two periods of 7 days, each with its own flaky tests. The period before (7-14 days ago):
 * `retried` passes on retry, `rerun` fails and passes at one commit (p2), `dev retried` passes
 * on retry on dev; `crossing` fails at commit x in its last run. The last 7 days: `flipper`
 * fails, passes and fails again on main; `crossing` passes at x, which is flaky only when both
 * runs of x are in one range.
 */
const HISTORY: PlantedRun[] = [
  { daysAgo: 13, branch: 'main', commit: 'p1', outcomes: { retried: 'R' } },
  { daysAgo: 12, branch: 'main', commit: 'p2', outcomes: { rerun: 'F' } },
  { daysAgo: 11.5, branch: 'main', commit: 'p2', outcomes: {} },
  { daysAgo: 11, branch: 'dev', commit: 'd1', outcomes: { 'dev retried': 'R' } },
  { daysAgo: 9, branch: 'main', commit: 'x', outcomes: { crossing: 'F' } },
  { daysAgo: 6, branch: 'main', commit: 'x', outcomes: {} },
  { daysAgo: 5, branch: 'main', commit: 'c1', outcomes: { flipper: 'F' } },
  { daysAgo: 4, branch: 'main', commit: 'c2', outcomes: {} },
  { daysAgo: 3, branch: 'main', commit: 'c3', outcomes: { flipper: 'F' } },
  { daysAgo: 2, branch: 'main', commit: 'c4', outcomes: {} },
];

/**
 * The flaky tests of some runs (oldest first) as docs/tests.md defines them, computed here from
 * what was sent: a pass on retry, both outcomes at one commit, or, among its last 30 runs on the
 * flip branch (`branch`, else the one most runs are on), a failure followed by a pass and then
 * another failure.
 */
function flakyOf(runs: PlantedRun[], branch: string | undefined): string[] {
  const counts = new Map<string, number>();
  for (const run of runs) counts.set(run.branch, (counts.get(run.branch) ?? 0) + 1);
  const flip =
    branch ?? [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? 'main';
  return NAMES.filter((name) => {
    const outcome = (run: PlantedRun) => run.outcomes[name] ?? 'P';
    if (runs.some((run) => outcome(run) === 'R')) return true;
    const commits = new Set(runs.map((run) => run.commit));
    for (const commit of commits) {
      const at = runs.filter((run) => run.commit === commit).map(outcome);
      if (at.includes('F') && at.some((o) => o !== 'F')) return true;
    }
    const onFlip = runs
      .filter((run) => run.branch === flip)
      .slice(-30)
      .map(outcome);
    const failure = onFlip.indexOf('F');
    const pass = onFlip.findIndex((o, i) => i > failure && o !== 'F');
    return failure >= 0 && pass >= 0 && onFlip.slice(pass + 1).includes('F');
  });
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

  it('gives the flaky tests of the period before, from its own runs, and shows the change', async () => {
    const now = Date.now();
    for (const [i, run] of HISTORY.entries()) {
      await storeTestRun(
        server,
        me.projectId,
        now - run.daysAgo * DAY,
        `h${i}`,
        NAMES.map((name) => {
          const outcome = run.outcomes[name] ?? 'P';
          return {
            suite: 'planted',
            name,
            duration_ms: 10,
            status: outcome === 'F' ? ('failed' as const) : ('passed' as const),
            ...(outcome === 'R' ? { attempts: 2 } : {}),
          };
        }),
        { branch: run.branch, commit: run.commit },
      );
    }
    const to = now + 1;
    const from = to - 7 * DAY;
    const within = (start: number, end: number, branch: string | undefined) =>
      HISTORY.filter((run) => {
        const at = now - run.daysAgo * DAY;
        return at >= start && at < end && (branch === undefined || run.branch === branch);
      });
    for (const branch of [undefined, 'main', 'dev']) {
      const current = flakyOf(within(from, to, branch), branch);
      const before = flakyOf(within(from - 7 * DAY, from, branch), branch);
      const view = await server.app.services.testQueries.view(me.accountId, {
        projectId: me.projectId,
        sort: 'flaky',
        limit: 50,
        from,
        to,
        ...(branch === undefined ? {} : { branch }),
      });
      expect(view.headline.current.flaky, branch).toBe(current.length);
      expect(view.headline.previous.flaky, branch).toBe(before.length);
      expect(view.list.tests.map((t) => t.name).sort(), branch).toEqual(current);
    }
    // What those are: each period's own, not the other's (crossing's commit x is in both).
    expect(flakyOf(within(from, to, undefined), undefined)).toEqual(['flipper']);
    expect(flakyOf(within(from - 7 * DAY, from, undefined), undefined)).toEqual([
      'retried',
      'rerun',
      'dev retried',
    ]);
    expect(flakyOf(within(from - 7 * DAY, from, 'main'), 'main')).toEqual(['retried', 'rerun']);

    // The page shows the change like the other figures: ▼ when fewer, coloured as better.
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const flakyNote = (html: string) =>
      (
        /Flaky tests<\/p><p class="stat-value">(\d+)<\/p><p class="stat-note">(.*?)<\/p>/.exec(
          html,
        ) ?? []
      ).slice(1);
    const week = await browser.get(`${testsPath()}?range=7d`);
    expect(week.statusCode).toBe(200);
    expect(flakyNote(week.body)).toEqual([
      '1',
      '<span class="change change-good" data-change="flaky"><span aria-hidden="true">▼</span>' +
        '<span class="sr-only">down</span> 2 on the period before' +
        '<span class="sr-only"> (better)</span> (before: 3)</span>',
    ]);
    const main = await browser.get(`${testsPath()}?range=7d&branch=main`);
    expect(flakyNote(main.body)[1]).toContain('▼</span><span class="sr-only">down</span> 1 on');
    expect(flakyNote(main.body)[1]).toContain('change-good');
    expect(flakyNote(main.body)[1]).toContain('(before: 2)');
    // Over 30 days both periods' runs are one range (crossing is flaky there too), the 30 days
    // before have none: ▲, worse.
    const month = await browser.get(`${testsPath()}?range=30d`);
    const all = flakyOf(HISTORY, undefined);
    expect(all).toEqual(['retried', 'rerun', 'dev retried', 'crossing', 'flipper']);
    expect(flakyNote(month.body)).toEqual([
      String(all.length),
      '<span class="change change-bad" data-change="flaky"><span aria-hidden="true">▲</span>' +
        `<span class="sr-only">up</span> ${all.length} on the period before` +
        '<span class="sr-only"> (worse)</span> (before: 0)</span>',
    ]);
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
