import postgres from 'postgres';

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the queries behind the three reads of the `tests` scenario
 * (flaky list, one test, Tests view) on a database tests-keep.js seeded, with the parameters the
 * server sends for the default range (the newest 1,000 runs):
 *
 *   node build/bench/tests-explain.js postgres://…/<database>
 */
const url = process.argv[2];
if (url === undefined) throw new Error('usage: tests-explain.js <postgres-url>');
const sql = postgres(url, { max: 1, onnotice: () => {} });
const FLAGGED = '(status IN (1, 2) OR attempts > 1)';
try {
  const [project] = await sql<{ id: string }[]>`SELECT project_id AS id FROM test_runs LIMIT 1`;
  const projectId = project?.id as string;
  const now = Date.now();
  const from = now - 30 * 24 * 60 * 60 * 1000;
  const runIds = (
    await sql<{ id: string }[]>`
      SELECT id FROM test_runs WHERE project_id = ${projectId} AND created_at >= ${from}
         AND created_at < ${now} ORDER BY id DESC LIMIT 1000`
  )
    .map((row) => Number(row.id))
    .reverse();
  const runs = `{${runIds.join(',')}}`;
  const flagged = (
    await sql.unsafe(
      `SELECT DISTINCT test_id FROM test_results WHERE run_id = ANY($1::bigint[]) AND ${FLAGGED}`,
      [runs],
    )
  ).map((row) => Number(row.test_id));
  const queries: [string, string, unknown[]][] = [
    [
      'runs of the range',
      `SELECT * FROM (SELECT id, created_at, branch FROM test_runs WHERE project_id = $1
         AND created_at >= $2 AND created_at < $3 ORDER BY id DESC LIMIT 1000) AS newest
        ORDER BY id`,
      [projectId, from, now],
    ],
    [
      'flagged tests of the runs',
      `SELECT DISTINCT test_id FROM test_results WHERE run_id = ANY($1::bigint[]) AND ${FLAGGED}
        ORDER BY test_id`,
      [runs],
    ],
    [
      "the flagged tests' results, a row per test",
      `SELECT test_id, string_agg(run_id::text, ','),
              string_agg(status::text, ''),
              string_agg(duration_ms::text, ','),
              string_agg(attempts::text, ','),
              string_agg(coalesce(message_id::text, ''), ',')
         FROM test_results WHERE test_id = ANY($1::bigint[]) AND run_id BETWEEN $2 AND $3
        GROUP BY test_id ORDER BY test_id`,
      [`{${flagged.join(',')}}`, runIds[0], runIds.at(-1)],
    ],
    [
      // As pg-tests.ts asks it when the runs are all of the project's in their id range.
      'the tests that ran (headline, list by name)',
      `SELECT c.id FROM test_cases c WHERE c.project_id = $1 AND EXISTS (
         SELECT 1 FROM test_results r WHERE r.test_id = c.id AND r.run_id BETWEEN $2 AND $3)
        ORDER BY c.id`,
      [projectId, runIds[0], runIds.at(-1)],
    ],
    [
      "one test's newest 100 results",
      `SELECT test_id, run_id, status, duration_ms, attempts, message_id FROM test_results
        WHERE test_id = 8 ORDER BY run_id DESC LIMIT 100`,
      [],
    ],
  ];
  for (const [name, text, params] of queries) {
    const plan = await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params as never[]);
    process.stdout.write(`\n## ${name}\n`);
    for (const row of plan) process.stdout.write(`${row['QUERY PLAN']}\n`);
  }
} finally {
  await sql.end({ timeout: 1 });
}
