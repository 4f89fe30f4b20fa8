import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../../contract/error-texts.js';
import { Paths } from '../../../contract/paths.js';
import type { TestCase } from '../../../contract/tests/ingest-tests.js';
import { selectRows } from '../../helpers/database.js';
import { eachTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/** POST /stats/ingest-tests: batches of a run's test cases, stored once each, on both backends. */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started), { RATE_LIMIT_INGEST_PER_MINUTE: '0' });

const run = (extra: Record<string, unknown> = {}) => ({
  projectId: me.projectId,
  buildId: '1234/test',
  attempt: 1,
  commit: 'abc123',
  branch: 'main',
  pullRequest: 7,
  ...extra,
});

const passed = (name: string, extra: Partial<TestCase> = {}): TestCase => ({
  suite: 'math',
  classname: 'test.Math',
  name,
  duration_ms: 12.4,
  status: 'passed',
  ...extra,
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  server.call('POST', Paths.ingestTests, { key: me.apiKey, body, headers });

/** Every stored result of the project: test name, status, duration, attempts, message. */
const stored = () =>
  selectRows(
    server.database,
    `SELECT c.name, r.status, r.duration_ms, r.attempts, m.text AS message
       FROM test_results r JOIN test_cases c ON c.id = r.test_id
       LEFT JOIN test_messages m ON m.id = r.message_id
      WHERE c.project_id = ? ORDER BY c.name`,
    me.projectId,
  );

const runs = () =>
  selectRows(
    server.database,
    `SELECT build_id, attempt, commit_sha, branch, pull_request, passed, failed, errors, skipped,
            flaky, duration_ms FROM test_runs WHERE project_id = ? ORDER BY id`,
    me.projectId,
  );

const numbers = (rows: Record<string, unknown>[]) =>
  rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [
        k,
        typeof v === 'bigint' || (/^\d+$/.test(String(v)) && typeof v !== 'string') ? Number(v) : v,
      ]),
    ),
  );

describe('POST /stats/ingest-tests', () => {
  it('stores every case of a batch with its run, and counts the run', async () => {
    const res = await post({
      ...run(),
      cases: [
        passed('adds'),
        passed('subtracts', { status: 'failed', message: 'expected 1 to be 2', duration_ms: 3 }),
        passed('divides', { status: 'error', message: 'TypeError: x' }),
        passed('rounds', { status: 'skipped', message: 'not on Windows', duration_ms: 0 }),
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['accept-encoding']).toBe('gzip');
    const body = res.json() as { message: string; runId: string; cases: number };
    expect(body).toEqual({
      message: 'Tests ingested successfully.',
      runId: expect.any(String),
      cases: 4,
    });
    expect(numbers(await stored())).toEqual([
      { name: 'adds', status: 0, duration_ms: 12, attempts: 1, message: null },
      { name: 'divides', status: 2, duration_ms: 12, attempts: 1, message: 'TypeError: x' },
      // A skip's message is its reason, not a failure: not kept.
      { name: 'rounds', status: 3, duration_ms: 0, attempts: 1, message: null },
      { name: 'subtracts', status: 1, duration_ms: 3, attempts: 1, message: 'expected 1 to be 2' },
    ]);
    expect(numbers(await runs())).toEqual([
      {
        build_id: '1234/test',
        attempt: 1,
        commit_sha: 'abc123',
        branch: 'main',
        pull_request: 7,
        passed: 1,
        failed: 1,
        errors: 1,
        skipped: 1,
        flaky: 0,
        duration_ms: 27,
      },
    ]);
  });

  it('merges a test seen twice in a run (retries): a pass after a failure is flaky', async () => {
    const first = await post({
      ...run(),
      cases: [
        passed('retried', { status: 'failed', message: 'timeout' }),
        passed('retried', { status: 'passed' }),
        passed('broken', { status: 'failed', message: 'boom', attempts: 2 }),
      ],
    });
    expect(first.statusCode).toBe(200);
    // A second batch of the same run adds to it.
    const second = await post({
      ...run(),
      cases: [passed('broken', { status: 'error', message: 'other' }), passed('new one')],
    });
    expect(second.statusCode).toBe(200);
    expect((second.json() as { runId: string }).runId).toBe(
      (first.json() as { runId: string }).runId,
    );
    expect(numbers(await stored())).toEqual([
      { name: 'broken', status: 1, duration_ms: 24, attempts: 3, message: 'boom' },
      { name: 'new one', status: 0, duration_ms: 12, attempts: 1, message: null },
      { name: 'retried', status: 0, duration_ms: 24, attempts: 2, message: 'timeout' },
    ]);
    const [counts] = numbers(await runs());
    expect(counts).toMatchObject({ passed: 2, failed: 1, errors: 0, flaky: 1 });
  });

  it('stores each test name once per project, however many runs name it', async () => {
    for (let n = 1; n <= 3; n++) {
      const res = await post({
        ...run({ buildId: `build-${n}` }),
        cases: [passed('a'), passed('b')],
      });
      expect(res.statusCode).toBe(200);
    }
    const tests = await selectRows(
      server.database,
      'SELECT count(*) AS n FROM test_cases WHERE project_id = ?',
      me.projectId,
    );
    expect(Number(tests[0]?.n)).toBe(2);
    expect((await stored()).length).toBe(6);
    expect((await runs()).length).toBe(3);
  });

  it('normalises identities the same way on every run; parametrised names stay distinct', async () => {
    await post({
      ...run({ buildId: 'one' }),
      cases: [
        passed('  adds   two\nnumbers '),
        passed('param[1-2]', { file: './src\\math.test.ts' }),
        passed('param[1-3]', { file: 'src/math.test.ts' }),
      ],
    });
    await post({
      ...run({ buildId: 'two' }),
      cases: [passed('adds two numbers'), passed('param[1-2]', { file: 'src/math.test.ts' })],
    });
    const tests = await selectRows(
      server.database,
      'SELECT name, file FROM test_cases WHERE project_id = ? ORDER BY name',
      me.projectId,
    );
    expect(tests).toEqual([
      { name: 'adds two numbers', file: null },
      { name: 'param[1-2]', file: 'src/math.test.ts' },
      { name: 'param[1-3]', file: 'src/math.test.ts' },
    ]);
  });

  it('stores a batch once per Idempotency-Key, and refuses the key with another batch', async () => {
    const batch = { ...run(), cases: [passed('a'), passed('b', { status: 'failed' })] };
    const headers = { 'idempotency-key': 'run-1234/batch-1' };
    const first = await post(batch, headers);
    const again = await post(batch, headers);
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(numbers(await stored()).map((r) => r.attempts)).toEqual([1, 1]);
    const other = await post({ ...batch, cases: [passed('c')] }, headers);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual({ error: OwnError.idempotencyKeyReused });
    expect((await stored()).length).toBe(2);
  });

  it('accepts a gzip body, and refuses other codings and broken gzip changing nothing', async () => {
    const body = JSON.stringify({ ...run(), cases: [passed('zipped')] });
    const zipped = await server.app.inject({
      method: 'POST',
      url: Paths.ingestTests,
      headers: {
        'x-api-key': me.apiKey,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      payload: gzipSync(body),
    });
    expect(zipped.statusCode).toBe(200);
    expect(numbers(await stored()).map((r) => r.name)).toEqual(['zipped']);

    const brotli = await server.app.inject({
      method: 'POST',
      url: Paths.ingestTests,
      headers: {
        'x-api-key': me.apiKey,
        'content-type': 'application/json',
        'content-encoding': 'br',
      },
      payload: body,
    });
    expect(brotli.statusCode).toBe(415);
    expect(brotli.headers['accept-encoding']).toBe('gzip');
    expect(brotli.json()).toEqual({ error: OwnError.unsupportedEncoding });

    const broken = await server.app.inject({
      method: 'POST',
      url: Paths.ingestTests,
      headers: {
        'x-api-key': me.apiKey,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      payload: Buffer.from(body),
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toEqual({ error: SpecError.invalidBody });
    expect((await stored()).length).toBe(1);
  });

  it('refuses a decompressed body over the limit (a gzip bomb) with 413', async () => {
    // 17 MB of JSON (whitespace, valid) in 17 kB of gzip.
    const json = JSON.stringify({ ...run(), cases: [passed('a')] });
    const bomb = gzipSync(`{${' '.repeat(17 * 1024 * 1024)}${json.slice(1)}`);
    expect(bomb.length).toBeLessThan(64 * 1024);
    const res = await server.app.inject({
      method: 'POST',
      url: Paths.ingestTests,
      headers: {
        'x-api-key': me.apiKey,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      payload: bomb,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: OwnError.bodyTooLarge });
    expect((await stored()).length).toBe(0);
  });

  it('refuses more than 5,000 cases, bad fields and foreign projects, storing nothing', async () => {
    const many = await post({
      ...run(),
      cases: Array.from({ length: 5001 }, (_, i) => passed(`t${i}`)),
    });
    expect(many.statusCode).toBe(400);
    expect((many.json() as { issues: { path: string }[] }).issues[0]?.path).toBe('cases');
    const badStatus = await post({ ...run(), cases: [passed('a', { status: 'flaky' as never })] });
    expect(badStatus.statusCode).toBe(400);
    expect((badStatus.json() as { issues: { path: string }[] }).issues[0]?.path).toBe(
      'cases.0.status',
    );
    const noProject = await post({ ...run({ projectId: '' }), cases: [passed('a')] });
    expect(noProject.json()).toMatchObject({ error: SpecError.projectIdRequired });
    const other = await server.account();
    const foreign = await post({ ...run({ projectId: other.projectId }), cases: [passed('a')] });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual({ error: SpecError.forbiddenProject });
    expect((await stored()).length).toBe(0);
  });
});
