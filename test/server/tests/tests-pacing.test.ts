import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Paths } from '../../../contract/paths.js';
import type { TestCase } from '../../../contract/tests/ingest-tests.js';
import { MAX_WAIT_MS, QUIET_MS } from '../../../server/services/tests/tests-pacing.js';
import { selectRows } from '../../helpers/database.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/**
 * Test results give way to other requests (issue 25: storing a run's tests must not slow other
 * projects' ingest by more than 10 %; server/services/tests/tests-pacing.ts). Over real HTTP,
 * since the pacing hears of other requests from the Node server: alone, every batch is stored at
 * once; beside a steady stream of another project's requests, each batch after the first waits
 * for a lull (at most MAX_WAIT_MS) and is stored all the same; once the stream ends, batches go at
 * once again. Both backends. The rule itself, exactly: test/domain/tests-pacing.test.ts.
 */

let server: TestServer;
let me: TestAccount;
let other: TestAccount;
let base: string;

beforeEach(async () => {
  server = await startTestServer({ RATE_LIMIT_INGEST_PER_MINUTE: '0' });
  me = await server.account();
  other = await server.account();
  base = await server.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(() => server.close());

const cases = (from: number, count: number): TestCase[] =>
  Array.from({ length: count }, (_, i) => ({
    suite: 'pacing',
    classname: `Pacing${Math.floor((from + i) / 100)}`,
    name: `case ${from + i}`,
    duration_ms: 3,
    status: 'passed',
  }));

/** One batch of run `buildId`, over HTTP: its answer's status. */
async function batch(buildId: string, n: number, size: number): Promise<number> {
  const res = await fetch(`${base}${Paths.ingestTests}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': me.apiKey,
      'idempotency-key': `${buildId}-${n}`,
    },
    body: JSON.stringify({ projectId: me.projectId, buildId, cases: cases(n * size, size) }),
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Another project's E8 from `connections` clients, one request after the other, until stopped: in
 * a process of its own, as other projects' reporters are (in this process, its clients could not
 * send while the server held the shared event loop, and their silence read as a lull). `started`
 * resolves once its first answer came: a loaded machine can take longer than a fixed pause to
 * start a process, and batches sent before the stream has begun rightly find the server quiet.
 */
function stream(connections: number): {
  started: Promise<void>;
  stop: () => Promise<{ answered: number; refused: number }>;
} {
  const script = `
    const [base, key, body, connections] = process.argv.slice(1);
    let running = true, answered = 0, refused = 0;
    process.on('SIGTERM', () => { running = false; });
    const loops = Array.from({ length: Number(connections) }, async () => {
      while (running) {
        const res = await fetch(base, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body,
        });
        await res.arrayBuffer();
        if (res.status === 200) answered += 1; else refused += 1;
        if (answered + refused === 1) process.stdout.write('started\\n');
      }
    });
    Promise.all(loops).then(() => process.stdout.write(JSON.stringify({ answered, refused })));
  `;
  const body = JSON.stringify({ projectId: other.projectId, payload: { build_ms: 1234 } });
  const child = spawn(
    process.execPath,
    ['-e', script, `${base}${Paths.ingestMetrics}`, other.apiKey, body, String(connections)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  let begun: () => void = () => undefined;
  const started = new Promise<void>((resolve, reject) => {
    begun = resolve;
    // A stream that ends before its first answer (a broken script, a refused start) fails the
    // test at once instead of leaving it waiting.
    child.once('exit', (code) => reject(new Error(`the stream ended before it began (${code})`)));
  });
  child.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.startsWith('started\n')) begun();
  });
  return {
    started,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
      return JSON.parse(out.slice('started\n'.length));
    },
  };
}

const storedCases = async (buildId: string) =>
  Number(
    (
      await selectRows(
        server.database,
        `SELECT count(*) AS n FROM test_results r JOIN test_runs u ON u.id = r.run_id
          WHERE u.project_id = ? AND u.build_id = ?`,
        me.projectId,
        buildId,
      )
    )[0]?.n,
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('stores every batch at once when nothing else is asked, and waits for a lull beside other requests, storing them all', async () => {
  const pacing = server.app.services.testIngest.pacing;
  const BATCHES = 4;
  const SIZE = 1_000;

  // Alone: no batch waits.
  for (let n = 0; n < BATCHES; n++) expect(await batch('alone', n, SIZE)).toBe(200);
  expect(pacing.stats).toMatchObject({ batches: BATCHES, waited: 0, waitedMs: 0 });
  expect(await storedCases('alone')).toBe(BATCHES * SIZE);

  // Beside another project's steady stream: each batch has a previous store to size its wait by,
  // and none finds a lull.
  const flood = stream(8);
  await flood.started;
  await sleep(300);
  for (let n = 0; n < BATCHES; n++) expect(await batch('beside', n, SIZE)).toBe(200);
  const { answered, refused } = await flood.stop();
  expect(answered).toBeGreaterThan(0);
  expect(refused).toBe(0);
  expect(pacing.stats.batches).toBe(2 * BATCHES);
  // A client's own pause (its collector, the machine's other work) can be a true lull of
  // QUIET_MS now and then: the exact rule is tests-pacing's unit test's (test/domain).
  expect(pacing.stats.waited).toBeGreaterThanOrEqual(1);
  expect(pacing.stats.waitedMs).toBeGreaterThan(0);
  expect(pacing.stats.waitedMs).toBeLessThanOrEqual(pacing.stats.waited * (MAX_WAIT_MS + 1_000));
  expect(await storedCases('beside')).toBe(BATCHES * SIZE);

  // The stream has ended: after a lull, batches go at once again.
  await sleep(QUIET_MS * 3);
  const waited = pacing.stats.waited;
  for (let n = 0; n < 2; n++) expect(await batch('after', n, SIZE)).toBe(200);
  expect(pacing.stats.waited).toBe(waited);
  expect(await storedCases('after')).toBe(2 * SIZE);
}, 120_000);
