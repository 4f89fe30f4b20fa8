import { describe, expect, it } from 'vitest';
import { FormClient } from '../helpers/form-client.js';
import { seededRandom, storeEvent, storeMetric } from '../helpers/seed-records.js';
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

/** The documented definitions: success ÷ (success + failure); the median by nearest rank. */
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
    expect(tableOf(all.body)).toEqual(expected(runs));

    const main = await browser.get(`/dashboard/projects/${me.projectId}?range=7d&branch=main`);
    const onMain = tableOf(main.body);
    expect(onMain).toEqual(expected(runs.filter((run) => run.branch === 'main')));
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
