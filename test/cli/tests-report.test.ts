import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { selectRows } from '../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../helpers/process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The built CLI sending every test case of its reports to the real server (a process on SQLite
 * or PostgreSQL): counted, batched, stored once each.
 */

const API_KEY = 'cli-tests-key-0123456789abcdefghijklmnopqrstuvwxyz01';
const FIXTURES = 'test/reporter/fixtures/tests';

let database: TestDatabase;
let server: ServerProcess;
let projectId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startServerProcess({ ...database.env, BOOTSTRAP_API_KEY: API_KEY });
  projectId = /project id:\s+(\S+)/.exec(server.output())?.[1] as string;
});

afterAll(async () => {
  await server.stop();
  await database.drop();
});

const settings = (extra: Record<string, string> = {}) => ({
  CI_STATS_API_KEY: API_KEY,
  CI_STATS_BASE_URL: server.url,
  CI_STATS_PROJECT_ID: projectId,
  GITLAB_CI: 'true',
  CI_PROJECT_PATH: 'group/app',
  CI_PIPELINE_ID: '4242',
  CI_JOB_ID: '77',
  CI_COMMIT_SHA: 'abc123',
  CI_COMMIT_BRANCH: 'main',
  ...extra,
});

const count = async (sql: string) => Number((await selectRows(database, sql, projectId))[0]?.n);

describe('ci-stats report --junit / --ctrf: every test case', () => {
  it('sends a run of 12,001 cases in batches, each stored once, with the counts', async () => {
    const file = join(database.dir, 'big.xml');
    const cases = Array.from(
      { length: 12_001 },
      (_, i) =>
        `<testcase classname="big.Suite" name="case ${i}" time="0.001">${i % 1000 === 0 ? '<failure message="boom"/>' : ''}</testcase>`,
    );
    writeFileSync(file, `<testsuite name="big">${cases.join('')}</testsuite>`);
    const run = await runCli(['report', '--junit', file, '--json'], settings());
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { records: { kind: string; ok: boolean; id: string }[] };
    expect(out.records.map((r) => r.kind)).toEqual(['metric', 'tests']);
    expect(
      await count(
        `SELECT count(*) AS n FROM test_results r JOIN test_runs u ON u.id = r.run_id
          WHERE u.project_id = ?`,
      ),
    ).toBe(12_001);
    const [runRow] = await selectRows(
      database,
      'SELECT passed, failed, commit_sha, branch FROM test_runs WHERE project_id = ?',
      projectId,
    );
    expect({ ...runRow, passed: Number(runRow?.passed), failed: Number(runRow?.failed) }).toEqual({
      passed: 11_988,
      failed: 13,
      commit_sha: 'abc123',
      branch: 'main',
    });
  }, 60_000);

  it('reads CTRF and JUnit together, retries merged into one result per test', async () => {
    const run = await runCli(
      [
        'report',
        '--event-type',
        'build',
        '--junit',
        `${FIXTURES}/surefire-flaky.xml`,
        '--ctrf',
        `${FIXTURES}/playwright.ctrf.json`,
        '--json',
      ],
      settings({ CI_JOB_ID: '78' }),
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('1 CTRF report(s): 7 test cases in all');
    const rows = await selectRows(
      database,
      `SELECT c.name, r.status, r.attempts, u.event_id FROM test_results r
         JOIN test_cases c ON c.id = r.test_id JOIN test_runs u ON u.id = r.run_id
        WHERE u.project_id = ? AND c.suite <> 'big' ORDER BY c.name`,
      projectId,
    );
    const event = (JSON.parse(run.stdout) as { records: { kind: string; id: string }[] })
      .records[0];
    expect(rows.map((r) => [r.name, Number(r.status), Number(r.attempts), r.event_id])).toEqual([
      ['addsItem', 0, 1, event?.id],
      ['appliesDiscount', 0, 2, event?.id],
      ['cart › adds', 0, 3, event?.id],
      ['cart › later', 3, 1, event?.id],
      ['checksOut', 1, 3, event?.id],
      ['login › shows the form', 0, 1, event?.id],
      ['login › signs in', 1, 2, event?.id],
    ]);
  }, 60_000);
});

describe('ci-stats report --quarantine', () => {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };

  it('exits 0 only when every failed test is quarantined; any other failure exits 1', async () => {
    const file = join(database.dir, 'quarantine.xml');
    writeFileSync(
      file,
      `<testsuite name="gate">
        <testcase classname="Gate" name="passes" time="0.01"/>
        <testcase classname="Gate" name="flaky one" time="0.01"><failure message="timeout"/></testcase>
        <testcase classname="Gate" name="flaky two" time="0.01"><error message="reset"/></testcase>
      </testsuite>`,
    );
    const args = ['report', '--event-type', 'build', '--junit', file, '--quarantine', '--json'];
    const report = (job: string) => runCli(args, settings({ CI_JOB_ID: job }));
    const eventStatus = (stdout: string) =>
      (
        JSON.parse(stdout) as {
          records: { kind: string; body: { payload: { status: string; tests: unknown } } }[];
        }
      ).records.find((r) => r.kind === 'event')?.body.payload;

    // Nothing quarantined yet: red, both failures named.
    const first = await report('q1');
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain(
      'error: 2 failed test(s) not quarantined: gate › flaky one, gate › flaky two',
    );
    expect(eventStatus(first.stdout)?.status).toBe('failure');

    const tests = (await api(
      'GET',
      `/stats/get-tests?projectId=${projectId}&sort=name&q=flaky`,
    )) as { tests: { id: string; name: string }[] };
    const id = (name: string) => tests.tests.find((t) => t.name === name)?.id as string;
    await api('POST', '/stats/quarantine-test', {
      projectId,
      test: id('flaky one'),
      reason: 'times out on slow runners',
    });

    // One of the two quarantined: still red, the other named; the quarantined one said.
    const second = await report('q2');
    expect(second.code, second.stderr).toBe(1);
    expect(second.stderr).toContain(
      'quarantined: gate › flaky one failed (quarantined: times out on slow runners)',
    );
    expect(second.stderr).toContain('error: 1 failed test(s) not quarantined: gate › flaky two');
    expect(eventStatus(second.stdout)?.status).toBe('failure');

    await api('POST', '/stats/quarantine-test', {
      projectId,
      test: id('flaky two'),
      reason: 'reset by the proxy',
    });

    // Both quarantined: green, one line each, the event a success naming them.
    const third = await report('q3');
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain('quarantined: gate › flaky one failed');
    expect(third.stderr).toContain(
      'quarantined: gate › flaky two failed (quarantined: reset by the proxy)',
    );
    expect(third.stderr).toContain(
      '2 failed test(s), all quarantined: the build is reported green',
    );
    expect(third.stderr).not.toContain('error:');
    const payload = eventStatus(third.stdout);
    expect(payload?.status).toBe('success');
    expect(payload?.tests).toMatchObject({
      failed: 1,
      errors: 1,
      quarantined: [
        { id: id('flaky one'), suite: 'gate', name: 'flaky one' },
        { id: id('flaky two'), suite: 'gate', name: 'flaky two' },
      ],
    });
    // The failures are still stored as failures: nothing is hidden.
    const [run] = await selectRows(
      database,
      `SELECT failed, errors FROM test_runs WHERE project_id = ? AND build_id LIKE '%/q3/%'`,
      projectId,
    );
    expect([Number(run?.failed), Number(run?.errors)]).toEqual([1, 1]);

    // Taken out of quarantine: red again.
    await api('POST', '/stats/unquarantine-test', { projectId, test: id('flaky two') });
    const fourth = await report('q4');
    expect(fourth.code).toBe(1);
    expect(fourth.stderr).toContain('error: 1 failed test(s) not quarantined: gate › flaky two');
  }, 60_000);
});
