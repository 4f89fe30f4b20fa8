import { join } from 'node:path';
import {
  COMPARE_KEYS,
  type CompareSeed,
  commitOfRecord,
  levelOf,
  seedComparePostgres,
  seedCompareSqlite,
} from './compare-seed.js';
import { API_KEY, serverEnv } from './load.js';
import { nearestRank } from './median.js';
import { startProcess, stop } from './processes.js';

/**
 * Scenario `compare` (issue 23's target: GET /stats/compare p50 ≤ 20 ms for a record of 50 keys,
 * each with a threshold and 64 values of history, on a project of 1 M metric records). The
 * history is seeded as stored and judged before anyone described the keys (compare-seed.ts);
 * then, through the API, every key gets a threshold (a mix of Bencher's tests) and the newest
 * records arrive over HTTP declaring units and directions, and are judged by the server's own
 * worker: `LIVE_MAIN` on main, then `LIVE_PR` from a pull request into main whose base commit is
 * one of those main records. compare is then measured for the newest main record and for the
 * newest pull-request record (by commit), one request at a time, beside a bare GET route.
 */

const LIVE_MAIN = 120;
const LIVE_PR = 5;
/** The pull request starts from this live main record (later main values must be ignored). */
const PR_BASE_INDEX = 80;

/** One test per key, cycling through Bencher's tests; one key in five is higher-is-better. */
function thresholdOf(projectId: string, key: string, j: number) {
  const higher = j % 5 === 4;
  const side = (b: number) => (higher ? { lower_boundary: b } : { upper_boundary: b });
  const level = levelOf(j);
  const tests = [
    { test: 't_test', ...side(0.99) },
    { test: 'z_score', ...side(0.99) },
    { test: 'percentage', ...side(0.1) },
    { test: 'static', ...side(higher ? level * 0.8 : level * 1.2) },
    { test: 'iqr', ...side(3) },
    { test: 'log_normal', ...side(0.99) },
  ];
  return {
    projectId,
    key,
    branch: 'main',
    ...tests[j % tests.length],
    max_sample_size: 64,
    ...(j % 6 === 0 ? { min_sample_size: 8 } : {}),
  };
}

function payloadOf(i: number, branch: string, extra: Record<string, unknown> = {}) {
  // Every 40th live record regresses on three keys (alerts exist, as in real life).
  const factor = (j: number) => (i % 40 === 0 && j < 3 ? 1.5 : 0.95 + 0.1 * Math.random());
  return {
    ...Object.fromEntries(COMPARE_KEYS.map((key, j) => [key, Math.round(levelOf(j) * factor(j))])),
    units: Object.fromEntries(COMPARE_KEYS.map((key) => [key, 'ms'])),
    directions: Object.fromEntries(
      COMPARE_KEYS.map((key, j) => [key, j % 5 === 4 ? 'higher' : 'lower']),
    ),
    ci: { branch, commit: commitOfRecord(i), ...extra },
  };
}

/** p50, p95, p99 (nearest rank) of `samples` sequential requests after 20 unmeasured ones. */
async function latencies(url: string, headers: Record<string, string>, samples: number) {
  const times: number[] = [];
  for (let i = 0; i < samples + 20; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
    if (i >= 20) times.push(performance.now() - started);
  }
  const rank = (q: number) => nearestRank(times, q);
  return {
    p50: Number(rank(0.5).toFixed(2)),
    p95: Number(rank(0.95).toFixed(2)),
    p99: Number(rank(0.99).toFixed(2)),
  };
}

interface Compared {
  record: { id: string; branch: string; commit: string };
  keys: {
    key: string;
    verdict: string;
    sample_size: number | null;
    test: string | null;
    base: { branch: string | null; commit: string | null };
  }[];
  alerts: unknown[];
}

/** What one answer holds: the figure must measure real work (50 judged keys). */
function check(answer: Compared, expectBaseCommit: string | null) {
  if (!Array.isArray(answer.keys)) throw new Error(`compare answered ${JSON.stringify(answer)}`);
  const verdicts: Record<string, number> = {};
  for (const k of answer.keys) verdicts[k.verdict] = (verdicts[k.verdict] ?? 0) + 1;
  const judged = answer.keys.filter((k) =>
    ['ok', 'regression', 'improvement'].includes(k.verdict),
  ).length;
  const full = answer.keys.filter((k) => k.sample_size === 64).length;
  const tests = [...new Set(answer.keys.map((k) => k.test))].sort();
  const baseRight =
    expectBaseCommit === null || answer.keys.every((k) => k.base.commit === expectBaseCommit);
  const ok = answer.keys.length === 50 && judged === 50 && full === 50 && baseRight;
  return { keys: answer.keys.length, judged, sample64: full, verdicts, tests, baseRight, ok };
}

async function measureCompare(
  env: Record<string, string>,
  seed: (projectId: string) => void | Promise<void>,
  size: CompareSeed,
  samples: number,
) {
  let server = await startProcess(['build/server/main.js'], env);
  const projectId = /project id:\s+(\S+)/.exec(server.stdout)?.[1] as string;
  await stop(server);
  let started = Date.now();
  await seed(projectId);
  const seedSeconds = (Date.now() - started) / 1000;
  process.stderr.write(`compare: seeded ${size.count} records in ${seedSeconds} s\n`);
  server = await startProcess(['build/server/main.js'], env);
  const reference = await startProcess(['build/bench/reference-server.js'], { PAGE_BYTES: '2000' });
  const json = { 'content-type': 'application/json', 'x-api-key': API_KEY };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  for (const [j, key] of COMPARE_KEYS.entries()) {
    await post('/stats/create-threshold', thresholdOf(projectId, key, j));
  }
  started = Date.now();
  let newestMain = '';
  for (let n = 0; n < LIVE_MAIN; n++) {
    const i = size.count + n;
    const answer = await post('/stats/ingest-metrics', {
      projectId,
      payload: payloadOf(i, 'main'),
    });
    newestMain = answer.id as string;
  }
  const baseSha = commitOfRecord(size.count + PR_BASE_INDEX);
  let prCommit = '';
  for (let n = 0; n < LIVE_PR; n++) {
    const i = size.count + LIVE_MAIN + n;
    prCommit = commitOfRecord(i);
    await post('/stats/ingest-metrics', {
      projectId,
      payload: payloadOf(i, 'feature/pr', {
        pull_request: { target_branch: 'main', base_sha: baseSha },
      }),
    });
  }
  const key = { 'x-api-key': API_KEY };
  const q = (query: Record<string, string>) =>
    `${server.url}/stats/compare?${new URLSearchParams({ projectId, ...query })}`;
  const mainUrl = q({ record: newestMain });
  const prUrl = q({ commit: prCommit });
  // The first compare waits for judging to drain (catchUp): that is the live records' judging.
  const mainAnswer = (await (await fetch(mainUrl, { headers: key })).json()) as Compared;
  const judgeSeconds = (Date.now() - started) / 1000;
  const prAnswer = (await (await fetch(prUrl, { headers: key })).json()) as Compared;
  const checks = { main: check(mainAnswer, null), pullRequest: check(prAnswer, baseSha) };
  process.stderr.write(`compare: answers ${JSON.stringify(checks)}\n`);
  const results: Record<string, { p50: number; p95: number; p99: number }> = {};
  const queries: [string, string, Record<string, string>][] = [
    ['bare GET (reference)', `${reference.url}/page`, {}],
    ['compare (newest main record, by id)', mainUrl, key],
    ['compare (pull-request record, by commit)', prUrl, key],
  ];
  for (const [name, url, headers] of queries) {
    results[name] = await latencies(url, headers, samples);
    process.stderr.write(`${name}: ${JSON.stringify(results[name])}\n`);
  }
  const serverPeakRssMb = await stop(server);
  await stop(reference);
  return { results, checks, seedSeconds, judgeSeconds, serverPeakRssMb, size };
}

export function compareOnSqlite(dir: string, size: CompareSeed, samples: number) {
  const databasePath = join(dir, 'compare.db');
  return measureCompare(
    serverEnv(databasePath, 'full'),
    (projectId) => seedCompareSqlite(databasePath, projectId, size),
    size,
    samples,
  );
}

export function compareOnPostgres(url: string, size: CompareSeed, samples: number) {
  const env = { ...serverEnv('', 'full'), DATABASE_URL: url };
  delete (env as Partial<typeof env>).DATABASE_PATH;
  delete (env as Partial<typeof env>).DURABILITY;
  return measureCompare(
    env,
    (projectId) => seedComparePostgres(url, projectId, size),
    size,
    samples,
  );
}

export type CompareRun = Awaited<ReturnType<typeof measureCompare>>;

/** The report's section: one table per backend run. */
export function compareReport(runs: Record<string, CompareRun>): string[] {
  const lines: string[] = [];
  for (const [backend, run] of Object.entries(runs)) {
    lines.push(
      '',
      `### compare on ${backend}: ${run.size.count.toLocaleString('en')} metric records (newest ${run.size.wide.toLocaleString('en')} with 50 keys)`,
      '',
      '| Query | p50 ms | p95 ms | p99 ms |',
      '|---|---:|---:|---:|',
      ...Object.entries(run.results).map(
        ([name, r]) => `| ${name} | ${r.p50} | ${r.p95} | ${r.p99} |`,
      ),
      '',
      `Answers: ${JSON.stringify(run.checks)}. Seeding ${run.seedSeconds} s; the live records ingested and judged in ${run.judgeSeconds} s; server peak RSS ${run.serverPeakRssMb} MiB.`,
    );
  }
  return lines;
}
