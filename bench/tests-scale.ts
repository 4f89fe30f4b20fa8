import { join } from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { API_KEY } from './load.js';
import { startProcess, stop } from './processes.js';

/**
 * Scenario `tests` (issue 25, "Scale and speed"): a project with TESTS tests, RUNS runs on three
 * branches over the last 30 days and `results` stored results (10 M on SQLite, 50 M on
 * PostgreSQL by default), written straight into a stopped server's database (bulk inserts in big
 * transactions on SQLite, one generate_series INSERT on PostgreSQL, never through HTTP); then the
 * p50 of the flaky list (get-tests sort=flaky), one test's page (get-test) and the Tests view
 * (the HTML page, through a share link), one request at a time. And the bytes a stored result
 * costs: on SQLite by dbstat after a VACUUM on a database of 1 M results, on PostgreSQL
 * pg_total_relation_size(test_results) / rows at the scenario's scale.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const BRANCHES = ['main', 'develop', 'feature/login'] as const;

export interface TestsScale {
  tests: number;
  runs: number;
  /** Stored results: each run holds results / runs tests, a window moving over the tests. */
  results: number;
  samples: number;
}

/** Scale from the environment; the figures by default. */
export function testsScaleOf(backend: 'sqlite' | 'postgres'): TestsScale {
  const env = process.env;
  return {
    tests: Number(env.BENCH_TESTS ?? 20_000),
    runs: Number(env.BENCH_TEST_RUNS ?? 2_500),
    results: Number(
      (backend === 'sqlite' ? env.BENCH_TEST_RESULTS : env.BENCH_TEST_RESULTS_PG) ??
        (backend === 'sqlite' ? 10_000_000 : 50_000_000),
    ),
    samples: Number(env.BENCH_TESTS_SAMPLES ?? 20),
  };
}

/**
 * Run r's branch, commit and time: main 3 runs in 5, develop 1, feature/login 1; spread evenly
 * over the last 30 days, the newest a minute ago.
 */
function runFacts(r: number, scale: TestsScale, now: number) {
  const branch = BRANCHES[r % 5 < 3 ? 0 : r % 5 === 3 ? 1 : 2] as string;
  const at = now - 60_000 - Math.floor(((scale.runs - 1 - r) * 30 * DAY_MS) / scale.runs);
  return { branch, commit: `c${Math.floor(r / 2)}`, at };
}

/**
 * Test t's outcome in run r (0 passed, 1 failed): 1 % of the tests flaky (fail 1 run in 7), 0.5 %
 * failing for good in the newest tenth of the runs, the others always pass; flaky ones pass on
 * retry (2 attempts) 1 run in 11.
 */
function outcome(t: number, r: number, scale: TestsScale): { status: number; attempts: number } {
  if (t % 100 === 7) {
    if ((r * 31 + t) % 7 === 0) return { status: 1, attempts: 1 };
    if ((r * 17 + t) % 11 === 0) return { status: 0, attempts: 2 };
  }
  if (t % 200 === 3 && r >= scale.runs * 0.9) return { status: 1, attempts: 1 };
  return { status: 0, attempts: 1 };
}

const durationOf = (t: number, r: number) => 5 + ((t * 7919 + r * 104729) % 400);

/** The tests run r ran: a window of results / runs tests moving over them. */
function windowOf(r: number, scale: TestsScale): { first: number; size: number } {
  const size = Math.min(scale.tests, Math.floor(scale.results / scale.runs));
  return { first: (r * size) % scale.tests, size };
}

/** Writes the tests, runs and results into a stopped server's SQLite database. */
export function seedTestsSqlite(databasePath: string, projectId: string, scale: TestsScale): void {
  const db = new Database(databasePath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const now = Date.now();
  db.transaction(() => {
    const test = db.prepare(
      `INSERT INTO test_cases (id, project_id, key, suite, classname, name, file, line, first_seen)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (let t = 0; t < scale.tests; t++) {
      test.run(
        t + 1,
        projectId,
        `bench${String(t).padStart(11, '0')}`,
        `suite ${t % 50}`,
        `Class${t % 400}`,
        `test ${t}`,
        `src/module${t % 400}.test.ts`,
        t % 300,
        now - 31 * DAY_MS,
      );
    }
    db.prepare('INSERT INTO test_messages (id, project_id, text) VALUES (1, ?, ?)').run(
      projectId,
      'expected true to be false',
    );
  })();
  const run = db.prepare(
    `INSERT INTO test_runs (id, project_id, key, build_id, attempt, commit_sha, branch, created_at,
                            passed, failed, duration_ms)
     VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`,
  );
  const result = db.prepare(
    `INSERT INTO test_results (run_id, test_id, status, duration_ms, attempts, message_id)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  // 50 runs per transaction: about 200,000 rows each at the default scale.
  const batch = db.transaction((from: number, to: number) => {
    for (let r = from; r < to; r++) {
      const facts = runFacts(r, scale, now);
      const { first, size } = windowOf(r, scale);
      let failed = 0;
      let total = 0;
      for (let i = 0; i < size; i++) {
        const t = (first + i) % scale.tests;
        const { status, attempts } = outcome(t, r, scale);
        const duration = durationOf(t, r);
        failed += status;
        total += duration;
        result.run(r + 1, t + 1, status, duration, attempts, status === 1 ? 1 : null);
      }
      run.run(
        r + 1,
        projectId,
        `run${r}`,
        `build ${r}`,
        facts.commit,
        facts.branch,
        facts.at,
        size - failed,
        failed,
        total,
      );
    }
  });
  for (let r = 0; r < scale.runs; r += 50) batch(r, Math.min(scale.runs, r + 50));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** The same on PostgreSQL, generated by the database itself. */
export async function seedTestsPostgres(
  url: string,
  projectId: string,
  scale: TestsScale,
): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const now = Date.now();
  try {
    await sql`
      INSERT INTO test_cases (id, project_id, key, suite, classname, name, file, line, first_seen)
      SELECT t + 1, ${projectId}, 'bench' || lpad(t::text, 11, '0'), 'suite ' || t % 50,
             'Class' || t % 400, 'test ' || t, 'src/module' || t % 400 || '.test.ts', t % 300,
             ${now - 31 * DAY_MS}
        FROM generate_series(0, ${scale.tests - 1}) AS t`;
    await sql`SELECT setval('test_cases_id_seq', ${scale.tests})`;
    await sql`INSERT INTO test_messages (id, project_id, text)
              VALUES (1, ${projectId}, 'expected true to be false')`;
    await sql`SELECT setval('test_messages_id_seq', 1)`;
    const runs = Array.from({ length: scale.runs }, (_, r) => ({ r, ...runFacts(r, scale, now) }));
    await sql`
      INSERT INTO test_runs (id, project_id, key, build_id, attempt, commit_sha, branch, created_at)
      SELECT r + 1, ${projectId}, 'run' || r, 'build ' || r, 1, commit, branch, at
        FROM json_to_recordset(${JSON.stringify(runs)}::text::json)
             AS x(r int, branch text, commit text, at bigint)`;
    await sql`SELECT setval('test_runs_id_seq', ${scale.runs})`;
    const size = windowOf(0, scale).size;
    // The indexes are made after the rows: much faster than keeping them up row by row.
    await sql`ALTER TABLE test_results DROP CONSTRAINT test_results_pkey`;
    await sql`DROP INDEX test_results_by_test`;
    // outcome() and durationOf() in SQL, over the same windows as windowOf().
    await sql`
      INSERT INTO test_results (run_id, test_id, duration_ms, message_id, status, attempts)
      SELECT r + 1, t + 1, 5 + ((t::bigint * 7919 + r::bigint * 104729) % 400),
             CASE WHEN s = 1 THEN 1 END, s, a
        FROM (
          SELECT r, t,
                 CASE WHEN t % 100 = 7 AND (r * 31 + t) % 7 = 0 THEN 1
                      WHEN t % 200 = 3 AND r >= ${scale.runs * 0.9} THEN 1 ELSE 0 END AS s,
                 CASE WHEN t % 100 = 7 AND (r * 31 + t) % 7 <> 0 AND (r * 17 + t) % 11 = 0
                      THEN 2 ELSE 1 END AS a
            FROM generate_series(0, ${scale.runs - 1}) AS r,
                 LATERAL (SELECT (r::bigint * ${size} + i) % ${scale.tests} AS t
                            FROM generate_series(0, ${size - 1}) AS i) AS w
        ) AS g
       ORDER BY r, t`;
    await sql`ALTER TABLE test_results ADD PRIMARY KEY (run_id, test_id)`;
    await sql`CREATE INDEX test_results_by_test ON test_results(test_id, run_id)`;
    await sql`
      UPDATE test_runs SET passed = c.passed, failed = c.failed, duration_ms = c.total
        FROM (SELECT run_id, count(*) FILTER (WHERE status = 0) AS passed,
                     count(*) FILTER (WHERE status = 1) AS failed, sum(duration_ms) AS total
                FROM test_results GROUP BY run_id) AS c
       WHERE c.run_id = test_runs.id`;
    await sql`VACUUM ANALYZE test_results`;
    await sql`ANALYZE test_runs`;
    await sql`ANALYZE test_cases`;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Bytes per stored result on SQLite: 1 M results (table and index) by dbstat after a VACUUM. */
export function sqliteBytesPerResult(dir: string): Record<string, number> {
  const path = join(dir, 'bytes.db');
  const db = new Database(path);
  // The tables as the migration makes them (sqlite-migrations.ts, version 7).
  db.exec(`
    CREATE TABLE test_results (
      run_id INTEGER NOT NULL, test_id INTEGER NOT NULL, status INTEGER NOT NULL,
      duration_ms INTEGER NOT NULL, attempts INTEGER NOT NULL, message_id INTEGER,
      PRIMARY KEY (run_id, test_id)) WITHOUT ROWID;
    CREATE INDEX test_results_by_test ON test_results(test_id, run_id);
  `);
  const scale = { tests: 20_000, runs: 250, results: 1_000_000, samples: 0 };
  const insert = db.prepare(
    `INSERT INTO test_results (run_id, test_id, status, duration_ms, attempts, message_id)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (let r = 0; r < scale.runs; r++) {
      const { first, size } = windowOf(r, scale);
      for (let i = 0; i < size; i++) {
        const t = (first + i) % scale.tests;
        const { status, attempts } = outcome(t, r, scale);
        insert.run(r + 1, t + 1, status, durationOf(t, r), attempts, status === 1 ? 1 : null);
      }
    }
  })();
  db.exec('VACUUM');
  const rows = db.prepare('SELECT count(*) FROM test_results').pluck().get() as number;
  const size = (name: string) =>
    db.prepare('SELECT sum(pgsize) FROM dbstat WHERE name = ?').pluck().get(name) as number;
  const table = size('test_results');
  const index = size('test_results_by_test');
  db.close();
  return {
    rows,
    tableBytesPerResult: Number((table / rows).toFixed(1)),
    indexBytesPerResult: Number((index / rows).toFixed(1)),
    bytesPerResult: Number(((table + index) / rows).toFixed(1)),
  };
}

/** PostgreSQL's cost of a stored result at the scenario's scale. */
export async function postgresBytesPerResult(url: string) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ rows: string; total: string; heap: string }[]>`
      SELECT (SELECT count(*) FROM test_results) AS rows,
             pg_total_relation_size('test_results') AS total,
             pg_relation_size('test_results') AS heap`;
    const rows = Number(row?.rows);
    return {
      rows,
      heapBytesPerResult: Number((Number(row?.heap) / rows).toFixed(1)),
      bytesPerResult: Number((Number(row?.total) / rows).toFixed(1)),
    };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/**
 * p50 and max (ms) of `samples` requests one after another, after two unmeasured ones; the
 * address of the i-th is `urlOf(i)`. Answers other than 200 are counted, not thrown: a read cut
 * short by the server's time limit is a figure too.
 */
async function timed(
  urlOf: (i: number) => string,
  headers: Record<string, string>,
  samples: number,
) {
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  for (let i = 0; i < samples + 2; i++) {
    const started = performance.now();
    const res = await fetch(urlOf(i), { headers });
    await res.arrayBuffer();
    if (i < 2) continue;
    times.push(performance.now() - started);
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  }
  times.sort((a, b) => a - b);
  return {
    p50: Number((times[Math.floor((times.length - 1) / 2)] as number).toFixed(1)),
    max: Number((times.at(-1) as number).toFixed(1)),
    statuses,
  };
}

/** Starts the server, stops it to seed, starts it again and measures the three reads. */
export async function testsScenario(
  env: Record<string, string>,
  scale: TestsScale,
  seed: (projectId: string) => void | Promise<void>,
  bytes: () => Record<string, number> | Promise<Record<string, number>>,
) {
  let server = await startProcess(['build/server/main.js'], env);
  const projectId = /project id:\s+(\S+)/.exec(server.stdout)?.[1] as string;
  await stop(server);
  const started = Date.now();
  await seed(projectId);
  const seedSeconds = (Date.now() - started) / 1000;
  process.stderr.write(`seeded ${scale.results} test results in ${seedSeconds} s\n`);
  const storage = await bytes();
  server = await startProcess(['build/server/main.js'], env);
  const key = { 'x-api-key': API_KEY };
  const q = (path: string, query: Record<string, string>) =>
    `${server.url}${path}?${new URLSearchParams({ projectId, ...query })}`;
  const link = await fetch(`${server.url}/stats/create-share-link`, {
    method: 'POST',
    headers: { ...key, 'content-type': 'application/json' },
    body: JSON.stringify({ projectId }),
  });
  const { token } = (await link.json()) as { token: string };
  // A flaky test (t % 100 === 7) that ran in the newest runs.
  const flaky = `bench${String(7).padStart(11, '0')}`;
  const reads: [string, string, Record<string, string>][] = [
    ['flaky list (get-tests sort=flaky)', q('/stats/get-tests', { sort: 'flaky' }), key],
    ['one test (get-test)', q('/stats/get-test', { test: flaky }), key],
    // Each request its own address: the share pages' cache of a few seconds must not answer.
    ['Tests view (HTML, share link)', `${server.url}/share/${token}/tests?range=30d`, {}],
  ];
  const results: Record<string, Awaited<ReturnType<typeof timed>>> = {};
  for (const [name, url, headers] of reads) {
    // The page: each request an address of its own, past the share pages' short cache.
    const urlOf = name.startsWith('Tests view') ? (i: number) => `${url}&sample=${i}` : () => url;
    results[name] = await timed(urlOf, headers, scale.samples);
    process.stderr.write(`${name}: ${JSON.stringify(results[name])}\n`);
  }
  const serverPeakRssMb = await stop(server);
  return { scale, seedSeconds, results, storage, serverPeakRssMb };
}

/** BENCHMARKS.md lines for one backend's run. */
export function testsReport(
  backend: string,
  run: Awaited<ReturnType<typeof testsScenario>>,
): string[] {
  const targets: Record<string, number> = {
    'flaky list (get-tests sort=flaky)': 200,
    'one test (get-test)': 50,
    'Tests view (HTML, share link)': 300,
  };
  return [
    '',
    `### Tests at scale (issue 25), ${backend}: ${run.scale.tests} tests, ${run.scale.runs} runs, ${run.scale.results} results`,
    '',
    '| Read | p50 (ms) | max (ms) | target p50 (ms) | answers |',
    '| --- | ---: | ---: | ---: | --- |',
    ...Object.entries(run.results).map(
      ([name, r]) =>
        `| ${name} | ${r.p50} | ${r.max} | ${targets[name] ?? ''} | ${JSON.stringify(r.statuses)} |`,
    ),
    '',
    `Storage: ${JSON.stringify(run.storage)}. Seeding took ${run.seedSeconds} s; peak RSS of the server ${run.serverPeakRssMb} MiB; ${run.scale.samples} samples per read.`,
  ];
}
