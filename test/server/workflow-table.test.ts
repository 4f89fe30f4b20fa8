import { describe, expect, it } from 'vitest';
import { newRecordId } from '../../server/domain/ids.js';
import { branchOf, seriesOf, statusOf } from '../../server/domain/record-facts.js';
import { MAX_WORKFLOW_RECORDS } from '../../server/services/project-page/workflow-table.js';
import { FormClient } from '../helpers/form-client.js';
import { foldStatistics, seededRandom, storeEvent, storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * The project page's table by workflow or CI job (issue 28): runs, success rate and the median
 * build duration per GitHub workflow (`github.workflow`) or other CI's job (`ci.job`), checked
 * against figures computed here from what was seeded, with the branch filter applied.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const HOUR = 3_600_000;

interface Run {
  workflow: string;
  status: string;
  branch: string;
  duration: number;
}

/** The cells of each row of the page's table: workflow → [runs, rate, success, failure, p50]. */
function tableOf(body: string): Map<string, string[]> {
  const table = /<table[^>]*data-workflow-table="true"[^>]*>([\s\S]*?)<\/table>/.exec(body)?.[1];
  expect(table, 'the workflow table').toBeDefined();
  const rows = new Map<string, string[]>();
  for (const row of (table as string).matchAll(/<tr data-workflow="([^"]+)">([\s\S]*?)<\/tr>/g)) {
    const values = [...(row[2] as string).matchAll(/data-value="([^"]*)"/g)].map(
      (m) => m[1] as string,
    );
    rows.set(row[1] as string, values.slice(1));
  }
  return rows;
}

/**
 * The documented definitions: success ÷ (success + failure); the median by nearest rank (the
 * page's is read from the cells' sketches: within 2 %, checked by `sameTable`).
 */
function expected(runs: Run[]) {
  const out = new Map<string, string[]>();
  for (const workflow of new Set(runs.map((run) => run.workflow))) {
    const of = runs.filter((run) => run.workflow === workflow);
    const success = of.filter((run) => run.status === 'success').length;
    const failure = of.filter((run) => run.status === 'failure').length;
    const sorted = of.map((run) => run.duration).sort((a, b) => a - b);
    const p50 = sorted[Math.ceil(sorted.length / 2) - 1] as number;
    out.set(workflow, [
      String(of.length),
      String(success + failure === 0 ? -1 : success / (success + failure)),
      String(success),
      String(failure),
      String(p50),
    ]);
  }
  return out;
}

/** The table as shown against the one expected: every figure exact, the median within 2 %. */
function sameTable(shown: Map<string, string[]>, want: Map<string, string[]>) {
  expect([...shown.keys()].sort()).toEqual([...want.keys()].sort());
  for (const [workflow, cells] of want) {
    const got = shown.get(workflow) as string[];
    expect(got.slice(0, 4), workflow).toEqual(cells.slice(0, 4));
    const p50 = Number(cells[4]);
    expect(Math.abs(Number(got[4]) - p50), `${workflow} median`).toBeLessThanOrEqual(p50 * 0.02);
  }
}

describe('the table by workflow or CI job', () => {
  it('gives runs, success rate and median duration per workflow and job, on the branch asked', async () => {
    const random = seededRandom(31);
    const now = Date.now();
    const runs: Run[] = [];
    const statuses = ['success', 'success', 'failure', 'cancelled'];
    for (let i = 0; i < 40; i++) {
      const at = now - 40 * HOUR + i * HOUR;
      const workflow = ['CI', 'Release', 'lint'][i % 3] as string;
      const status = statuses[Math.floor(random() * statuses.length)] as string;
      const branch = random() < 0.7 ? 'main' : 'feature';
      const duration = 1000 + Math.round(random() * 9000);
      runs.push({ workflow, status, branch, duration });
      // GitHub's workflows through the Action's `github`; `lint` as another CI's job (`ci.job`).
      const context =
        workflow === 'lint'
          ? { ci: { branch, job: workflow } }
          : { ci: { branch }, github: { workflow, ref: `refs/heads/${branch}` } };
      await storeEvent(server, me.projectId, at, 'build', { status, ...context });
      await storeMetric(server, me.projectId, at + 1, { duration_ms: duration, ...context });
    }
    // An event of no workflow is in no row.
    await storeEvent(server, me.projectId, now - HOUR, 'build', { status: 'failure' });

    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const all = await browser.get(`/dashboard/projects/${me.projectId}?range=7d`);
    expect(all.statusCode).toBe(200);
    sameTable(tableOf(all.body), expected(runs));

    const main = await browser.get(`/dashboard/projects/${me.projectId}?range=7d&branch=main`);
    const onMain = tableOf(main.body);
    sameTable(onMain, expected(runs.filter((run) => run.branch === 'main')));
    // Most runs first (the script sorts by other columns).
    const order = [...onMain.values()].map((cells) => Number(cells[0]));
    expect(order).toEqual([...order].sort((a, b) => b - a));
    expect(main.body).toContain('<code>lint</code>');

    // Its CSV gives the same figures.
    const csv = await browser.get(
      `/dashboard/projects/${me.projectId}/export.csv?range=7d&branch=main&table=workflows`,
    );
    expect(csv.statusCode).toBe(200);
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe('workflow,runs,success_rate,success,failure,duration_p50');
    const fromCsv = new Map(
      lines.slice(1).map((line) => {
        const [name, ...cells] = line.split(',');
        return [name as string, cells.map((cell, i) => (i === 1 && cell === '' ? '-1' : cell))];
      }),
    );
    expect(fromCsv).toEqual(onMain);
  });

  it('shows no table when no record names a workflow or job', async () => {
    await storeEvent(server, me.projectId, Date.now() - HOUR, 'build', { status: 'success' });
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const page = await browser.get(`/dashboard/projects/${me.projectId}?range=7d`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('data-workflow-table');
  });
});

/** The times of the timeline's events on a page, in the order shown, and its Older link. */
function timelineOf(body: string): { times: number[]; older: string | undefined } {
  const section = /<h2 id="timeline-title">[\s\S]*?<\/section>/.exec(body)?.[0];
  expect(section, 'the timeline').toBeDefined();
  const times = [...(section as string).matchAll(/<time datetime="([^"]+)"/g)].map((m) =>
    Date.parse(m[1] as string),
  );
  const older = /<a href="([^"]+)">Older events<\/a>/.exec(section as string)?.[1];
  return { times, older: older?.replace(/&amp;/g, '&') };
}

describe('the table by workflow over a large range', () => {
  it('counts every run of the range, past the 2,000 newest records, before and after the fold', async () => {
    const random = seededRandom(7);
    const now = Date.now();
    const runs: (Run & { at: number })[] = [];
    const records: Parameters<typeof server.app.storage.records.importBatch>[0][number][] = [];
    // 3,000 runs over the last 6 days (imported: back-dated, folded by their own times), more
    // than the newest-2,000 read of each kind the table used to make.
    for (let i = 0; i < 3_000; i++) {
      const at = now - 6 * 24 * HOUR + Math.floor(random() * 6 * 24 * HOUR);
      const workflow = ['CI', 'Release', 'nightly'][Math.floor(random() * 3)] as string;
      const status = ['success', 'success', 'failure', 'cancelled'][
        Math.floor(random() * 4)
      ] as string;
      const branch = random() < 0.6 ? 'main' : 'dev';
      // The oldest runs are the slowest: a read of the newest only gets the median wrong.
      const duration = Math.round((now - at) / 60_000 + random() * 1_000);
      runs.push({ at, workflow, status, branch, duration });
      const github = { workflow, ref: `refs/heads/${branch}` };
      const event = { status, github };
      const metric = { duration_ms: duration, github };
      records.push({
        kind: 'event',
        notification: undefined,
        row: {
          id: newRecordId(),
          projectId: me.projectId,
          eventType: 'build',
          description: null,
          payload: JSON.stringify(event),
          color: null,
          createdAt: at,
          branch: branchOf(event),
          status: statusOf(event),
        },
      });
      records.push({
        kind: 'metric',
        row: {
          id: newRecordId(),
          projectId: me.projectId,
          payload: JSON.stringify(metric),
          createdAt: at,
          branch: branchOf(metric),
        },
        series: seriesOf(metric),
      });
    }
    await server.app.storage.records.importBatch(records);
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const check = async () => {
      for (const branch of [undefined, 'dev']) {
        const page = await browser.get(
          `/dashboard/projects/${me.projectId}?range=7d${branch ? `&branch=${branch}` : ''}`,
        );
        expect(page.statusCode).toBe(200);
        const of = runs.filter((run) => branch === undefined || run.branch === branch);
        sameTable(tableOf(page.body), expected(of));
      }
    };
    await check();
    await foldStatistics(server, Date.now());
    await check();
  });
});

describe('a workflow row filters the page', () => {
  it('links each row to ?workflow=, whose timeline holds that workflow only, shown and removable', async () => {
    const now = Date.now();
    const ci: number[] = [];
    for (let i = 0; i < 50; i++) {
      const at = now - 48 * HOUR + i * 1_800_000;
      // Every third run is the release workflow, else CI (GitHub), and a few are another CI's job.
      const workflow = i % 3 === 0 ? 'Release' : i % 7 === 0 ? 'lint' : 'CI';
      const context =
        workflow === 'lint'
          ? { ci: { branch: 'main', job: workflow } }
          : { ci: { branch: 'main' }, github: { workflow, ref: 'refs/heads/main' } };
      await storeEvent(server, me.projectId, at, 'build', { status: 'success', ...context });
      if (workflow === 'CI') ci.push(at);
    }
    // A job named like a workflow in `ci.job` but with GitHub's workflow set is of the latter.
    await storeEvent(server, me.projectId, now - HOUR + 1, 'build', {
      status: 'failure',
      ci: { job: 'CI' },
      github: { workflow: 'Release' },
    });
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const path = `/dashboard/projects/${me.projectId}`;

    const all = await browser.get(`${path}?range=7d`);
    expect(all.statusCode).toBe(200);
    const link = /<tr data-workflow="CI"[^>]*>\s*<td[^>]*>\s*<a href="([^"]+)">/.exec(
      all.body,
    )?.[1];
    expect(link).toBe(`${path}?range=7d&amp;workflow=CI`);
    expect(all.body).not.toContain('data-workflow-filter');

    const filtered = await browser.get(`${path}?range=7d&workflow=CI`);
    expect(filtered.statusCode).toBe(200);
    const newest = [...ci].sort((a, b) => b - a);
    const first = timelineOf(filtered.body);
    expect(first.times).toEqual(newest.slice(0, 20));
    // The filter is said, with the row marked and a way back to every workflow.
    expect(filtered.body).toContain('data-workflow-filter');
    expect(filtered.body).toMatch(/<tr data-workflow="CI" aria-current="true">/);
    expect(filtered.body).toContain(`<a href="${path}?range=7d">Show every workflow</a>`);
    // The filters form keeps it on Apply.
    expect(filtered.body).toContain('<input type="hidden" name="workflow" value="CI"/>');

    // Older pages follow, until every CI event was shown once.
    const shown = [...first.times];
    let older = first.older;
    while (older !== undefined) {
      expect(older).toContain('workflow=CI');
      const next = timelineOf((await browser.get(older)).body);
      shown.push(...next.times);
      older = next.older;
    }
    expect(shown).toEqual(newest);

    // With the event type filter too; of another type, none.
    const typed = await browser.get(`${path}?range=7d&type=deploy&workflow=CI`);
    expect(typed.statusCode).toBe(200);
    expect(timelineOf(typed.body).times).toEqual([]);

    // A name longer than any workflow's is refused, as a too long branch is.
    const long = await browser.get(`${path}?range=7d&workflow=${'w'.repeat(201)}`);
    expect(long.statusCode).toBe(400);
  });

  it('reads a bounded number of events per page, and goes on past them', async () => {
    const now = Date.now();
    const rare = [now - 30 * HOUR, now - 29 * HOUR, now - 28 * HOUR];
    const event = (at: number, workflow: string) => {
      const payload = { status: 'success', github: { workflow } };
      return {
        kind: 'event' as const,
        notification: undefined,
        row: {
          id: newRecordId(),
          projectId: me.projectId,
          eventType: 'build',
          description: null,
          payload: JSON.stringify(payload),
          color: null,
          createdAt: at,
          branch: branchOf(payload),
          status: statusOf(payload),
        },
      };
    };
    await server.app.storage.records.importBatch(rare.map((at) => event(at, 'rare')));
    // More events of another workflow, all newer, than one page reads.
    const noise = Array.from({ length: MAX_WORKFLOW_RECORDS + 100 }, (_, i) =>
      event(now - 20 * HOUR + i * 1000, 'busy'),
    );
    await server.app.storage.records.importBatch(noise);

    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const page = await browser.get(`/dashboard/projects/${me.projectId}?range=7d&workflow=rare`);
    expect(page.statusCode).toBe(200);
    const first = timelineOf(page.body);
    // The first page stopped at the bound, before the rare events, and says where to go on.
    expect(first.times).toEqual([]);
    expect(first.older).toBeDefined();
    const second = timelineOf((await browser.get(first.older as string)).body);
    expect(second.times).toEqual([...rare].reverse());
    expect(second.older).toBeUndefined();
  });
});
