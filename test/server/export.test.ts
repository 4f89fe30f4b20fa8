import { describe, expect, it } from 'vitest';
import { TEST_LINE_KEYS } from '../../contract/export.js';
import type { TestCase } from '../../contract/tests/ingest-tests.js';
import { resultsOf } from '../../server/domain/tests/test-batch.js';
import { STATUS_NAME } from '../../server/domain/tests/test-status.js';
import { foldStatistics, seededRandom, storeEvent, storeMetric } from '../helpers/seed-records.js';
import { storeTestRun } from '../helpers/seed-tests.js';
import {
  eachTestServer,
  startTestServer,
  type TestAccount,
  type TestServer,
} from '../helpers/server.js';
import { createTestDatabase, onPostgres } from '../helpers/test-database.js';

/**
 * Export and import of records (docs/export.md) on the backend of the Vitest project, and on
 * PostgreSQL a round trip through both backends: SQLite out, PostgreSQL in and out, SQLite in and
 * out, the same bytes each time and the same statistics.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const HOUR = 3_600_000;
const HEADER = (kind: string) => `{"format":"ci-stats-records","version":1,"kind":"${kind}"}`;

const exported = (on: TestServer, who: TestAccount, query: string) =>
  on.call('GET', `/stats/export?projectId=${who.projectId}&${query}`, { key: who.apiKey });

const imported = (on: TestServer, who: TestAccount, body: string, projectId = who.projectId) =>
  on.call('POST', `/stats/import-records?projectId=${projectId}`, {
    key: who.apiKey,
    headers: { 'content-type': 'application/x-ndjson' },
    body,
  });

/** Events and metrics at hourly times from `start`, with every kind of field, through E7/E8's storage. */
async function seed(on: TestServer, projectId: string, start: number, count: number) {
  const random = seededRandom(11);
  for (let i = 0; i < count; i += 1) {
    const at = start + i * HOUR + Math.floor(random() * 1000);
    const status = random() < 0.7 ? 'success' : 'failure';
    await storeEvent(on, projectId, at, i % 3 === 0 ? 'deploy' : 'build', {
      status,
      branch: i % 2 ? 'main' : 'feature, "quoted"\nline',
      note: `é ✓ ${i}`,
    });
    await storeMetric(on, projectId, at + 1, {
      duration_ms: Math.round(random() * 1e4),
      size: { bundle: random() * 100 },
      branch: 'main',
    });
  }
  await foldStatistics(on, start + count * HOUR);
}

describe('export', () => {
  it("streams a project's records oldest first as NDJSON and CSV, resumable after a record, within a time range", async () => {
    const start = Date.UTC(2026, 0, 1);
    await seed(server, me.projectId, start, 30);
    // Another project's records are not in the export.
    const other = await server.account();
    await seed(server, other.projectId, start, 3);

    // What E8 stored, read back through get-metrics (newest first), independently of the export.
    const back = await server.call(
      'GET',
      `/stats/get-metrics?projectId=${me.projectId}&limit=200`,
      { key: me.apiKey },
    );
    const stored = (
      back.json() as { metrics: { id: string; payload: unknown; created_at: string }[] }
    ).metrics.reverse();
    expect(stored).toHaveLength(30);

    const res = await exported(server, me, 'kind=metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = res.body.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe(HEADER('metrics'));
    expect(lines.slice(1, -1).map((line) => JSON.parse(line))).toEqual(
      stored.map((m) => ({ id: m.id, created_at: m.created_at, payload: m.payload })),
    );

    // Resumed after the 10th record: the 11th on, exactly.
    const after = stored[9]?.id as string;
    const resumed = await exported(server, me, `kind=metrics&after=${after}`);
    expect(resumed.body.split('\n').slice(1)).toEqual(lines.slice(11));

    // A time range: from inclusive, to exclusive, on created_at.
    const from = stored[5]?.created_at as string;
    const to = stored[8]?.created_at as string;
    const ranged = await exported(server, me, `kind=metrics&from=${from}&to=${to}`);
    expect(ranged.body.split('\n').slice(1, -1)).toEqual(lines.slice(6, 9));

    // Events, CSV: quoted fields where RFC 4180 needs them, the payload as JSON text.
    const events = await server.call(
      'GET',
      `/stats/get-events?projectId=${me.projectId}&limit=200`,
      {
        key: me.apiKey,
      },
    );
    const eventItems = (
      events.json() as {
        events: { id: string; eventType: string; created_at: string; payload: unknown }[];
      }
    ).events.reverse();
    const csv = await exported(server, me, 'kind=events&format=csv');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;
    const expected = [
      'id,created_at,eventType,description,color,payload',
      ...eventItems.map(
        (e) => `${e.id},${e.created_at},${e.eventType},,,${quote(JSON.stringify(e.payload))}`,
      ),
      '',
    ].join('\r\n');
    expect(csv.body).toBe(expected);
  });

  it('refuses what it cannot answer with a clear error', async () => {
    const other = await server.account();
    const foreign = await server.call(
      'GET',
      `/stats/export?projectId=${other.projectId}&kind=events`,
      { key: me.apiKey },
    );
    expect(foreign.statusCode).toBe(403);
    expect((await exported(server, me, 'kind=tables')).statusCode).toBe(400);
    const unknown = await exported(server, me, 'kind=events&after=nosuchrecord');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: expect.any(String) });
    const backwards = await exported(
      server,
      me,
      'kind=events&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z',
    );
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json()).toEqual({ error: 'to: must be after from' });
  });
});

/**
 * Test runs at minute steps from `start`: a first run of 2,500 cases (more than a page of
 * results), then 101 runs of a few (more than a page of runs), with every kind of field. Returns
 * each result's expected line, its run's number and its test's id.
 */
async function seedTestRuns(on: TestServer, projectId: string, start: number) {
  const expected: { line: Record<string, unknown>; test: string; run: number }[] = [];
  for (let n = 0; n < 102; n += 1) {
    const cases: TestCase[] =
      n === 0
        ? Array.from({ length: 2_500 }, (_, i) => ({
            suite: 'big',
            name: `case ${i}`,
            duration_ms: i % 97,
            status: 'passed',
          }))
        : [
            { suite: 'math', name: 'adds', duration_ms: n, status: 'passed' },
            {
              suite: 'math',
              classname: 'Division, "exact"',
              name: 'divides',
              file: 'test/math.test.ts',
              line: 12,
              duration_ms: 9,
              status: n % 3 === 0 ? 'failed' : 'passed',
              message: 'expected 2, got "3"\n',
              attempts: n % 5 === 0 ? 2 : 1,
            },
            { suite: 'math', name: `skips ${n % 2}`, duration_ms: 0, status: 'skipped' },
          ];
    const at = start + n * 60_000;
    const facts = { commit: `c${n}`, branch: n % 2 ? 'main' : 'feature', pullRequest: n % 7 };
    const run = await storeTestRun(on, projectId, at, `build ${n}`, cases, facts);
    for (const result of resultsOf(cases)) {
      const { test } = result;
      expected.push({
        run: n,
        test: test.key,
        line: {
          id: `${run.key}:${test.key}`,
          created_at: new Date(at).toISOString(),
          run: run.key,
          buildId: `build ${n}`,
          attempt: 1,
          ...facts,
          eventId: null,
          test: test.key,
          suite: test.suite,
          classname: test.classname,
          name: test.name,
          file: test.file,
          line: test.line,
          status: STATUS_NAME[result.status],
          duration_ms: result.durationMs,
          attempts: result.attempts,
          message: result.message,
        },
      });
    }
  }
  return expected;
}

/**
 * The expected lines in stored order: runs as stored, a run's results in its tests' storage
 * order, which is the order the export first shows them in (the order a backend gave the tests
 * of a batch their ids differs: SQLite the batch's, PostgreSQL the ids').
 */
function inStoredOrder(expected: Awaited<ReturnType<typeof seedTestRuns>>, body: string[]) {
  const rank = new Map<string, number>();
  for (const line of body) {
    const { test } = JSON.parse(line) as { test: string };
    if (!rank.has(test)) rank.set(test, rank.size);
  }
  const at = (test: string) => rank.get(test) ?? Number.NaN;
  return [...expected].sort((a, b) => a.run - b.run || at(a.test) - at(b.test)).map((e) => e.line);
}

describe('tests export', () => {
  it('streams every test result, a line each with its run and test, resumable, within a range; the import refuses it', async () => {
    const start = Date.UTC(2026, 3, 1);
    const seeded = await seedTestRuns(server, me.projectId, start);
    const other = await server.account();
    await storeTestRun(server, other.projectId, start, 'theirs', [
      { suite: 'math', name: 'adds', duration_ms: 1, status: 'passed' },
    ]);

    const res = await exported(server, me, 'kind=tests');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = res.body.split('\n');
    expect(lines[0]).toBe(HEADER('tests'));
    expect(lines.at(-1)).toBe('');
    const body = lines.slice(1, -1);
    expect(body).toHaveLength(2_500 + 101 * 3);
    const expected = inStoredOrder(seeded, body);
    // Byte for byte: the keys in the documented order.
    expect(body).toEqual(
      expected.map((line) =>
        JSON.stringify(Object.fromEntries(TEST_LINE_KEYS.map((key) => [key, line[key]]))),
      ),
    );
    expect(Object.keys(JSON.parse(body[0] as string))).toEqual([...TEST_LINE_KEYS]);

    // Resumed after a line: at a page's end, within a page, at a run's end, after the last.
    for (const at of [1_000, 1_234, 2_500, 2_503, body.length]) {
      const id = JSON.parse(body[at - 1] as string).id as string;
      const rest = await exported(server, me, `kind=tests&after=${encodeURIComponent(id)}`);
      expect(rest.statusCode).toBe(200);
      expect(rest.body.split('\n').slice(1, -1), `after line ${at}`).toEqual(body.slice(at));
    }
    for (const after of ['nosuchline', 'abc:def', `${expected[0]?.run}:nosuchtest`]) {
      const unknown = await exported(server, me, `kind=tests&after=${encodeURIComponent(after)}`);
      expect(unknown.statusCode, after).toBe(404);
      expect(unknown.json()).toEqual({ error: expect.any(String) });
    }

    // A range on the runs' times: from inclusive, to exclusive.
    const from = new Date(start + 2 * 60_000).toISOString();
    const to = new Date(start + 50 * 60_000).toISOString();
    const ranged = await exported(server, me, `kind=tests&from=${from}&to=${to}`);
    expect(ranged.body.split('\n').slice(1, -1)).toEqual(
      body.filter((line) => {
        const at = JSON.parse(line).created_at as string;
        return at >= from && at < to;
      }),
    );
    expect(ranged.body.split('\n')).toHaveLength(2 + 48 * 3);

    // CSV: the same columns, RFC 4180 quoting.
    const csv = await exported(server, me, 'kind=tests&format=csv');
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const field = (value: unknown) => {
      if (value === null) return '';
      const text = String(value);
      return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    };
    expect(csv.body).toBe(
      [
        TEST_LINE_KEYS.join(','),
        ...expected.map((line) => TEST_LINE_KEYS.map((key) => field(line[key])).join(',')),
        '',
      ].join('\r\n'),
    );

    // Test results come in through ingest-tests only: the import refuses the file whole.
    const refused = await imported(server, me, res.body);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error:
        'line 1: a tests export cannot be imported: test results come in through POST /stats/ingest-tests (docs/tests.md)',
    });
    expect((await exported(server, me, 'kind=records')).body).toBe(`${HEADER('records')}\n`);
    expect((await exported(server, me, 'kind=tests')).body).toBe(res.body);
  }, 60_000);
});

describe('import', () => {
  it('takes an export back into a server; a bad line anywhere stores nothing', async () => {
    const start = Date.UTC(2026, 1, 1);
    const source = await server.account();
    await seed(server, source.projectId, start, 12);
    const records = (await exported(server, source, 'kind=records')).body;
    const lines = records.split('\n');
    expect(lines[0]).toBe(HEADER('records'));
    expect(lines).toHaveLength(26);

    // Into this server, whose newest record is newer than the file's: stored back-dated
    // (test/server/import-backdated.test.ts), and a second run stores nothing twice.
    const late = await imported(server, me, records);
    expect(late.json()).toEqual({
      projectId: me.projectId,
      kind: 'records',
      imported: 24,
      skipped: 0,
    });
    expect((await imported(server, me, records)).json()).toEqual({
      projectId: me.projectId,
      kind: 'records',
      imported: 0,
      skipped: 24,
    });

    const target = await startTestServer();
    try {
      const them = await target.account();
      const broken = [...lines];
      broken[9] = broken[9]?.replace(/"created_at":"[^"]*"/, '"created_at":"yesterday"') as string;
      const refused = await imported(target, them, broken.join('\n'));
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: expect.stringMatching(/^line 10: created_at: /) });
      const kindless = [
        lines[0],
        lines[1]?.replace('"kind":"event"', '"kind":"row"'),
        ...lines.slice(2),
      ];
      expect((await imported(target, them, kindless.join('\n'))).json()).toEqual({
        error: 'line 2: kind: must be "event" or "metric"',
      });
      const headless = await imported(target, them, lines.slice(1).join('\n'));
      expect(headless.statusCode).toBe(400);
      expect(headless.json().error).toMatch(/^line 1: the first line must be the export's header/);
      const wrongType = await target.call(
        'POST',
        `/stats/import-records?projectId=${them.projectId}`,
        { key: them.apiKey, body: { records: [] } },
      );
      expect(wrongType.statusCode).toBe(415);
      expect((await imported(target, them, records, me.projectId)).statusCode).toBe(403);
      expect((await exported(target, them, 'kind=records')).body).toBe(`${HEADER('records')}\n`);

      const ok = await imported(target, them, records);
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({
        projectId: them.projectId,
        kind: 'records',
        imported: 24,
        skipped: 0,
      });
      expect((await exported(target, them, 'kind=records')).body).toBe(records);
      for (const kind of ['events', 'metrics']) {
        expect((await exported(target, them, `kind=${kind}`)).body).toBe(
          (await exported(server, source, `kind=${kind}`)).body,
        );
      }
      // Resumed after a metric and after an event: the rest of the same stream.
      for (const at of [6, 7]) {
        const id = JSON.parse(lines[at] as string).id as string;
        const rest = await exported(target, them, `kind=records&after=${id}`);
        expect(rest.body).toBe([lines[0], ...lines.slice(at + 1)].join('\n'));
      }
    } finally {
      await target.close();
    }
  });
});

describe.runIf(onPostgres)('round trip through both backends', () => {
  it('SQLite out, PostgreSQL in and out, SQLite in and out: the same bytes and statistics', async () => {
    const start = Date.UTC(2026, 2, 1);
    const sqlite = await startTestServer({}, await createTestDatabase({ backend: 'sqlite' }));
    const sqliteAgain = await startTestServer({}, await createTestDatabase({ backend: 'sqlite' }));
    try {
      const first = await sqlite.account();
      await seed(sqlite, first.projectId, start, 40);
      const out = (await exported(sqlite, first, 'kind=records')).body;
      expect(out.split('\n')).toHaveLength(82);

      expect((await imported(server, me, out)).json().imported).toBe(80);
      const fromPostgres = (await exported(server, me, 'kind=records')).body;
      expect(fromPostgres).toBe(out);
      const back = await sqliteAgain.account();
      expect((await imported(sqliteAgain, back, fromPostgres)).statusCode).toBe(200);
      expect((await exported(sqliteAgain, back, 'kind=records')).body).toBe(out);

      // The statistics made from the imported records are those of the originals.
      await foldStatistics(server, start + 40 * HOUR);
      await foldStatistics(sqliteAgain, start + 40 * HOUR);
      const range = `from=${new Date(start).toISOString()}&to=${new Date(start + 40 * HOUR).toISOString()}&buckets=8`;
      for (const path of ['/stats/get-build-summary', '/stats/get-metric-series']) {
        const query = `${range}${path.endsWith('series') ? '&key=duration_ms' : ''}`;
        const answers = await Promise.all(
          (
            [
              [sqlite, first],
              [server, me],
              [sqliteAgain, back],
            ] as const
          ).map(async ([on, who]) => {
            const res = await on.call('GET', `${path}?projectId=${who.projectId}&${query}`, {
              key: who.apiKey,
            });
            expect(res.statusCode, path).toBe(200);
            const body = res.json() as Record<string, unknown>;
            delete body.projectId;
            return body;
          }),
        );
        expect(answers[1], path).toEqual(answers[0]);
        expect(answers[2], path).toEqual(answers[0]);
      }
    } finally {
      await sqlite.close();
      await sqliteAgain.close();
    }
  }, 60_000);
});
