import { performance } from 'node:perf_hooks';
import type { LightMyRequestResponse } from 'fastify';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { JudgingNotice } from '../../server/http/pages/dashboard/views/judging-notice.js';
import {
  PAGE_JUDGING_WAIT_MS,
  PENDING_COUNT_MAX,
} from '../../server/services/verdicts/verdict-reads.js';
import { FormClient } from '../helpers/form-client.js';
import { holdJudging } from '../helpers/hold-judging.js';
import { storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Issue 28, "pages people read first": the owner's project page and the dashboard's overview
 * waited for the judging of every pending metric record of the whole deployment (minutes at a
 * million records after an upgrade or an import). They now wait PAGE_JUDGING_WAIT_MS at most,
 * show what is judged, and say how many records are still to judge; the JSON API still waits for
 * all of them. Judging is held here by taking its lock, so the backlog is exactly the records
 * stored meanwhile, and "waits for judging" is an answer that never comes while it is held.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const MINUTE = 60_000;
/** Records stored while judging is held: the last one is a regression of the rest. */
const RECORDS = 30;
const NOTICE = `Judging ${RECORDS} new records: verdicts and alerts may be incomplete; refresh in a moment.`;
/** Past the wait: the page's own reads, on a shared machine (the wait itself is the bound). */
const READS_MS = 3000;

/** `request`'s answer, or 'still waiting' if it has not come in 5 s while judging is held. */
const whileHeld = <T>(request: Promise<T>) =>
  Promise.race([
    request,
    new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 5000)),
  ]);

/** A page's answer while judging is held, and how long it took. */
async function timed(read: Promise<LightMyRequestResponse>) {
  const started = performance.now();
  const res = await whileHeld(read);
  if (res === 'still waiting') throw new Error('the page waited for the judging held');
  return { res, ms: performance.now() - started };
}

/** The headline's active alerts as the page shows them. */
const activeAlerts = (body: string) =>
  /data-figure="active_alerts"[\s\S]*?data-value="([^"]*)"/.exec(body)?.[1];

/** A threshold that judges `size` on main against the mean of the values before (any one). */
async function seedThreshold() {
  const created = await server.call('POST', VerdictPaths.createThreshold, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      key: 'size',
      branch: 'main',
      test: 'percentage',
      upper_boundary: 0.5,
      min_sample_size: 1,
    },
  });
  expect(created.statusCode, created.body).toBe(201);
}

/** RECORDS records of `size` on main, the last ten times the rest (an alert once judged). */
async function storeBacklog() {
  const now = Date.now();
  for (let i = 0; i < RECORDS; i++) {
    await storeMetric(server, me.projectId, now - (RECORDS - i) * MINUTE, {
      size: i === RECORDS - 1 ? 1000 : 100,
      directions: { size: 'lower' },
      ci: { branch: 'main', commit: `c${i}` },
    });
  }
}

async function untilJudged() {
  const deadline = Date.now() + 20_000;
  // The background judging goes on after the page stopped waiting: nothing has to call catchUp.
  while ((await server.app.storage.verdicts.pendingCount(1000)) > 0) {
    if (Date.now() > deadline) throw new Error('judging did not catch up in the background');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('shows the project page within the bound while judging is behind, with the count, then the verdicts', async () => {
  await seedThreshold();
  const browser = new FormClient(server);
  await browser.signIn(me.apiKey);
  const path = `/dashboard/projects/${me.projectId}?range=24h`;
  await server.app.services.judging.catchUp();
  const release = await holdJudging(server);
  let released = false;
  try {
    await storeBacklog();
    // The count reads no further than asked (its cost), on both backends.
    expect(await server.app.storage.verdicts.pendingCount(1000)).toBe(RECORDS);
    expect(await server.app.storage.verdicts.pendingCount(10)).toBe(10);

    const first = await timed(browser.get(path));
    expect(first.res.statusCode).toBe(200);
    expect(first.ms).toBeLessThan(PAGE_JUDGING_WAIT_MS + READS_MS);
    expect(first.res.body).toContain(NOTICE);
    expect(first.res.body).toContain(`role="status" data-judging-pending="${RECORDS}"`);
    // At the top: before the headline.
    expect(first.res.body.indexOf(NOTICE)).toBeLessThan(
      first.res.body.indexOf('data-figure="active_alerts"'),
    );
    // What is judged: not the regression yet.
    expect(activeAlerts(first.res.body)).toBe('0');

    // Loaded again while the first's catch-up still waits: answered within the bound too.
    const again = await timed(browser.get(path));
    expect(again.res.statusCode).toBe(200);
    expect(again.ms).toBeLessThan(PAGE_JUDGING_WAIT_MS + READS_MS);
    expect(again.res.body).toContain(NOTICE);

    // The API's reads still include every record stored before them: they wait.
    const keys = server.call('GET', `${Paths.getMetricKeys}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    // So does the page's CSV: a file has no room for the notice.
    const csv = browser.get(
      `/dashboard/projects/${me.projectId}/export.csv?range=24h&table=headline`,
    );
    expect(await Promise.all([whileHeld(keys), whileHeld(csv)])).toEqual([
      'still waiting',
      'still waiting',
    ]);

    await release();
    released = true;
    expect((await keys).statusCode).toBe(200);
    const file = await csv;
    expect(file.statusCode, file.body).toBe(200);
    // Answered after the judging: the regression's alert is in it.
    expect(file.body).toMatch(/^active_alerts,1,/m);
  } finally {
    if (!released) await release();
  }

  await untilJudged();
  const judged = await browser.get(path);
  expect(judged.statusCode).toBe(200);
  expect(judged.body).not.toContain('data-judging-pending');
  expect(judged.body).not.toContain('verdicts and alerts may be incomplete');
  expect(activeAlerts(judged.body)).toBe('1');
});

it('shows the dashboard overview while judging is behind, and the API’s summaries wait for it', async () => {
  await seedThreshold();
  const browser = new FormClient(server);
  await browser.signIn(me.apiKey);
  await server.app.services.judging.catchUp();
  const release = await holdJudging(server);
  let released = false;
  try {
    await storeBacklog();
    const overview = await timed(browser.get('/dashboard'));
    expect(overview.res.statusCode).toBe(200);
    expect(overview.ms).toBeLessThan(PAGE_JUDGING_WAIT_MS + READS_MS);
    expect(overview.res.body).toContain(NOTICE);

    const summaries = server.call('GET', Paths.getProjectSummaries, { key: me.apiKey });
    expect(await whileHeld(summaries)).toBe('still waiting');
    await release();
    released = true;
    const body = (await summaries).json() as { projects: { id: string; active_alerts: number }[] };
    expect(body.projects.find((p) => p.id === me.projectId)?.active_alerts).toBe(1);
  } finally {
    if (!released) await release();
  }

  await untilJudged();
  const judged = await browser.get('/dashboard');
  expect(judged.statusCode).toBe(200);
  expect(judged.body).not.toContain('data-judging-pending');
});

it('counts with separators, says "or more" at the count’s cap, and says nothing without a backlog', () => {
  const notice = (pending: number) => renderToString(h(JudgingNotice, { pending }));
  expect(notice(12_345)).toBe(
    '<p class="notice warn" role="status" data-judging-pending="12345">Judging 12,345 new records: verdicts and alerts may be incomplete; refresh in a moment.</p>',
  );
  expect(notice(1)).toContain('Judging 1 new record:');
  expect(notice(PENDING_COUNT_MAX)).toContain('Judging 100,000 or more new records:');
  expect(notice(0)).toBe('');
});
