import { describe, expect, it } from 'vitest';
import { Paths } from '../../../contract/paths.js';
import type { TestCase } from '../../../contract/tests/ingest-tests.js';
import type { TestList, TestRunList } from '../../../contract/tests/test-queries.js';
import { binOf } from '../../../server/domain/sketch.js';
import { executeSql, selectRows } from '../../helpers/database.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/**
 * The summaries and day rows of stored tests are kept behind the batches (docs/tests.md, "Kept
 * behind the batches"): a batch is answered once its results are stored, with its upkeep queued
 * in the same transaction; the upkeep is applied at a lull, and every read applies its project's
 * queue first. Here the worker is stopped unless a test says otherwise, so what is applied when
 * is the test's to choose. Expected rows are computed here from the definitions (docs/tests.md):
 * a summary's recent window is `run:code` (0 passed, 1 failed, 4 passed on retry), a day row
 * counts a test's results on that day, a merged result replacing its earlier self.
 */

const ENV = { RATE_LIMIT_INGEST_PER_MINUTE: '0', RATE_LIMIT_OTHER_PER_MINUTE: '0' };

const testCase = (name: string, status: TestCase['status'], duration_ms: number): TestCase => ({
  suite: 'upkeep',
  name,
  duration_ms,
  status,
  ...(status === 'failed' ? { message: `${name} failed` } : {}),
});

/** Two batches of one run (the second merges with the first), then a run on another branch. */
const BATCHES = [
  {
    buildId: 'r1',
    branch: 'main',
    cases: [testCase('x', 'skipped', 0), testCase('y', 'passed', 30)],
  },
  {
    buildId: 'r1',
    branch: 'main',
    cases: [testCase('x', 'failed', 12), testCase('y', 'failed', 40)],
  },
  { buildId: 'r2', branch: 'dev', cases: [testCase('x', 'passed', 7), testCase('y', 'passed', 9)] },
];

async function send(server: TestServer, me: TestAccount, batch: (typeof BATCHES)[number]) {
  const res = await server.call('POST', Paths.ingestTests, {
    key: me.apiKey,
    body: { projectId: me.projectId, commit: `c-${batch.buildId}`, ...batch },
  });
  expect(res.statusCode, res.body).toBe(200);
}

const rows = async (server: TestServer, sql: string) =>
  (await selectRows(server.database, sql)).map((row) =>
    Object.values(row)
      .map((value) => String(value))
      .join(' '),
  );

/** The derived rows, without the project's id (two servers' projects differ). */
const derived = async (server: TestServer) => ({
  summaries: (
    await rows(
      server,
      `SELECT c.name, s.branch, s.last_run, s.recent FROM test_summaries s
         JOIN test_cases c ON c.id = s.test_id`,
    )
  ).sort(),
  days: (
    await rows(
      server,
      `SELECT c.name, d.branch, d.day, d.runs, d.passed, d.failed, d.skipped, d.retried, d.bins
         FROM test_days d JOIN test_cases c ON c.id = d.test_id`,
    )
  ).sort(),
});

const pending = async (server: TestServer) =>
  Number((await selectRows(server.database, 'SELECT count(*) AS n FROM test_upkeep'))[0]?.n);

/**
 * A server whose upkeep worker is stopped. Ready first: the onReady hooks start the workers, and
 * the first request makes the app ready, so a worker stopped before it would run again (it did,
 * and applied a batch between a test's two reads on a loaded machine).
 */
async function stoppedServer() {
  const server = await startTestServer(ENV);
  await server.app.ready();
  await server.app.services.testUpkeep.stop();
  return { server, me: await server.account() };
}

describe('the upkeep of tests behind their batches', () => {
  it('is queued with each batch and applied by a read before it answers', async () => {
    const { server, me } = await stoppedServer();
    try {
      for (const batch of BATCHES) await send(server, me, batch);
      // Long enough for a running worker to take its lull (which it did before the fix above).
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await pending(server)).toBe(3);
      expect(await derived(server)).toEqual({ summaries: [], days: [] });
      expect(server.app.services.testUpkeep.stats.background).toBe(0);
      // The run's counts are kept by the batch itself: x failed (its skip merged away), y passed
      // on retry; the durations add up.
      const runs = await server.call(
        'GET',
        `${Paths.getTestRuns}?projectId=${me.projectId}&branch=main`,
        { key: me.apiKey },
      );
      const [r1] = (runs.json() as TestRunList).runs;
      expect(r1).toMatchObject({ passed: 1, failed: 1, errors: 0, skipped: 0, passed_on_retry: 1 });
      expect(r1?.duration_ms).toBe(0 + 30 + 12 + 40);

      const list = await server.call(
        'GET',
        `${Paths.getTests}?projectId=${me.projectId}&sort=name`,
        { key: me.apiKey },
      );
      expect(list.statusCode, list.body).toBe(200);
      expect((list.json() as TestList).tests.map((t) => t.name).sort()).toEqual(['x', 'y']);
      expect(await pending(server)).toBe(0);

      const [run1, run2] = (
        await selectRows(server.database, 'SELECT id FROM test_runs ORDER BY id')
      ).map((row) => String(row.id));
      const day = Math.floor(Date.now() / 86_400_000);
      const { summaries, days } = await derived(server);
      expect(summaries).toEqual(
        [
          `x  ${run2} ${run1}:1,${run2}:0`,
          `x dev ${run2} ${run2}:0`,
          `x main ${run1} ${run1}:1`,
          `y  ${run2} ${run1}:4,${run2}:0`,
          `y dev ${run2} ${run2}:0`,
          `y main ${run1} ${run1}:4`,
        ].sort(),
      );
      const bins = (...ms: number[]) =>
        [
          ...ms
            .map(binOf)
            .reduce((m, b) => m.set(b, (m.get(b) ?? 0) + 1), new Map<number, number>()),
        ]
          .sort((a, b) => a[0] - b[0])
          .map(([b, n]) => `${b}:${n}`)
          .join(',');
      expect(days).toEqual(
        [
          // name branch day runs passed failed skipped retried bins
          `x  ${day} 2 1 1 0 0 ${bins(12, 7)}`,
          `x dev ${day} 1 1 0 0 0 ${bins(7)}`,
          `x main ${day} 1 0 1 0 0 ${bins(12)}`,
          `y  ${day} 2 2 0 0 1 ${bins(70, 9)}`,
          `y dev ${day} 1 1 0 0 0 ${bins(9)}`,
          `y main ${day} 1 1 0 0 1 ${bins(70)}`,
        ].sort(),
      );
    } finally {
      await server.close();
    }
  });

  it('gives the same rows applied in any order (a later batch committed first)', async () => {
    const inOrder = await stoppedServer();
    const reversed = await stoppedServer();
    try {
      for (const { server, me } of [inOrder, reversed]) {
        for (const batch of BATCHES) await send(server, me, batch);
      }
      // The newest entry first, then the merge, then the first batch: each moved behind the rest.
      const ids = (
        await selectRows(reversed.server.database, 'SELECT id FROM test_upkeep ORDER BY id')
      ).map((row) => Number(row.id));
      for (const [i, id] of ids.entries()) {
        await executeSql(
          reversed.server.database,
          `UPDATE test_upkeep SET id = ${1000 - i} WHERE id = ${id}`,
        );
      }
      for (const { server, me } of [inOrder, reversed]) {
        await server.app.services.testUpkeep.catchUp(me.projectId);
        expect(await pending(server)).toBe(0);
      }
      const expected = await derived(inOrder.server);
      expect(expected.summaries.length).toBe(6);
      expect(await derived(reversed.server)).toEqual(expected);
    } finally {
      await inOrder.server.close();
      await reversed.server.close();
    }
  });

  it('survives a restart before it is applied, and is applied at start without a read', async () => {
    const { server, me } = await stoppedServer();
    let reopened: TestServer | undefined;
    try {
      for (const batch of BATCHES) await send(server, me, batch);
      await server.app.close();
      reopened = await startTestServer(ENV, server.database);
      // As `listen` does (app.inject would too): the onReady hooks start the workers.
      await reopened.app.ready();
      const { stats } = reopened.app.services.testUpkeep;
      // Three entries for the queue to be empty in the database, and the worker's count of them:
      // an entry is gone from the queue once its transaction commits, and counted once the log
      // holding it is flushed, a moment later.
      const started = Date.now();
      while (stats.background < 3 && Date.now() - started < 10_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(stats.background).toBe(3);
      expect(await pending(reopened)).toBe(0);
      expect((await derived(reopened)).summaries.length).toBe(6);
    } finally {
      await (reopened ?? server).close();
    }
  });

  it("leaves nothing of a run removed before its upkeep (retention's)", async () => {
    const { server, me } = await stoppedServer();
    try {
      await send(server, me, BATCHES[0] as (typeof BATCHES)[number]);
      await executeSql(server.database, 'DELETE FROM test_results');
      await executeSql(server.database, 'DELETE FROM test_runs');
      await server.app.services.testUpkeep.catchUp(me.projectId);
      expect(await pending(server)).toBe(0);
      expect(await derived(server)).toEqual({ summaries: [], days: [] });
    } finally {
      await server.close();
    }
  });
});
