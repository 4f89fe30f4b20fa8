import { performance } from 'node:perf_hooks';
import { expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { type Comparison, VerdictPaths } from '../../contract/verdicts.js';
import { BUSY_SHARE } from '../../server/services/verdicts/judging-worker.js';
import { holdJudging } from '../helpers/hold-judging.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Background judging yields to a busy server (issue 23: judging must not cost ingest more than
 * 5 % of its throughput). While other work keeps the event loop busy, judging keeps to about
 * BUSY_SHARE of it; once the server is quiet it goes on at full speed without any read asking;
 * a read that shows verdicts never waits for its pauses. The busy server is played by the test
 * itself: a timer that keeps the (shared) event loop busy 4 ms of every 5.
 *
 * Both backends. What judging takes is `background.ms`: its batches' time on the event loop on
 * SQLite, their wall time on PostgreSQL (where a batch's statements wait for the database and its
 * own time on the loop cannot be told from other work's).
 */

let server: TestServer;
let me: TestAccount;

// A burst of ingest from one key, as a benchmark sends: far below the limits.
eachTestServer((started) => ({ server, me } = started), {
  RATE_LIMIT_INGEST_PER_MINUTE: '1000000',
  RATE_LIMIT_INGEST_BURST: '100000',
});

const RECORDS = 600;
const KEYS = ['build_ms', 'bundle_bytes', 'test_ms', 'lint_ms', 'deploy_ms'];

async function ingestBacklog(): Promise<string> {
  let last = '';
  for (let i = 0; i < RECORDS; i++) {
    const payload: Record<string, unknown> = {
      directions: Object.fromEntries(KEYS.map((k) => [k, 'lower'])),
      ci: { branch: 'main', commit: `c${i}` },
    };
    for (const [k, key] of KEYS.entries()) payload[key] = 1000 + k * 10 + (i % 7);
    const res = await server.call('POST', Paths.ingestMetrics, {
      key: me.apiKey,
      body: { projectId: me.projectId, payload },
    });
    expect(res.statusCode, res.body).toBe(200);
    last = res.json().id;
  }
  return last;
}

/** Keeps the event loop busy 4 ms of every 5 until the returned function is called. */
function keepBusy(): () => void {
  const timer = setInterval(() => {
    const end = performance.now() + 4;
    while (performance.now() < end) {
      // Other requests' work, as far as the event loop can tell.
    }
  }, 5);
  return () => clearInterval(timer);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (up to 90 s) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  const deadline = performance.now() + 90_000;
  while (!done() && performance.now() < deadline) await sleep(2);
  expect(done()).toBe(true);
}

it('keeps to a small share of a busy event loop, catches up when quiet, and never makes a read wait for a pause', async () => {
  const judging = server.app.services.judging;
  const release = await holdJudging(server);
  const last = await ingestBacklog();
  const quiet = keepBusy();
  const released = { ...judging.background };
  await release();
  // The first batch follows no pause (nothing has said the server is busy yet): the share is
  // measured from its end, over 1.5 s and to the end of the batch then running, if one is.
  await until(() => judging.background.batches > released.batches);
  const start = { ...judging.background, at: performance.now() };
  await sleep(1_500);
  await until(() => judging.pausing || judging.background.records - released.records >= RECORDS);
  const busySpan = performance.now() - start.at;
  const busyMs = judging.background.ms - start.ms;
  // It went on, paced: each batch followed by a pause 19 times as long. At full speed (without
  // the pacing) judging took about half of this loop on SQLite, and on PostgreSQL, where a
  // batch's round trips wait behind the busy loop, all of this span; the bound leaves room for
  // timer jitter on a loaded machine, not for that.
  expect(judging.background.records).toBeGreaterThan(released.records);
  expect(judging.background.busyPauses).toBeGreaterThan(released.busyPauses);
  expect(busyMs / busySpan).toBeLessThan(3 * BUSY_SHARE);

  // A read that shows verdicts asks for everything stored before it: no pause is taken for it.
  const pausesBefore = judging.background.busyPauses;
  const res = await server.call(
    'GET',
    `${VerdictPaths.compare}?projectId=${me.projectId}&record=${last}`,
    { key: me.apiKey },
  );
  expect(res.statusCode, res.body).toBe(200);
  const comparison: Comparison = res.json();
  expect(comparison.keys.map((k) => k.key).sort()).toEqual([...KEYS].sort());
  expect(comparison.keys.every((k) => k.verdict !== 'no-baseline')).toBe(true);
  expect(judging.background.busyPauses).toBe(pausesBefore);
  quiet();
}, 120_000);

it('once the server is quiet, judges the rest of a burst at full speed without being asked', async () => {
  const judging = server.app.services.judging;
  const release = await holdJudging(server);
  await ingestBacklog();
  const quiet = keepBusy();
  const start = { ...judging.background };
  await release();
  await sleep(500);
  quiet();
  const whenQuiet = { ...judging.background };
  // No read is made: background judging alone must get through the rest.
  await until(() => judging.background.records - start.records >= RECORDS);
  expect(judging.background.records - start.records).toBe(RECORDS);
  // Busy pauses stopped with the busy loop: still paced, every batch would be followed by one (a
  // rare garbage collection in a probe may take one for busy-ness, hence the allowance).
  const batches = judging.background.batches - whenQuiet.batches;
  const pauses = judging.background.busyPauses - whenQuiet.busyPauses;
  expect(batches).toBeGreaterThan(0);
  expect(pauses).toBeLessThanOrEqual(1 + Math.floor(batches / 10));
}, 120_000);
