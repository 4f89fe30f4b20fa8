/**
 * The tests export's memory and the dashboard's storage use (issue 29, docs/export.md,
 * docs/operations.md): a server process on a new SQLite database (or DATABASE_URL) takes R runs
 * of 5,000 test cases through POST /stats/ingest-tests, then streams them out with GET
 * /stats/export?kind=tests while its resident memory is sampled every 10 ms from /proc, and the
 * signed-in Projects page (which counts and sizes the project) is timed.
 * `node build/bench/tests-export.js [runs]` (default 40: 200,000 results); prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchBackend, createBenchProject, startBenchServer } from './bench-account.js';
import { measureExport } from './export-measure.js';

const runs = Number(process.argv[2] ?? 40);
const CASES = 5_000;
const dir = mkdtempSync(join(tmpdir(), 'tests-export-'));

/** The cookies a response sets, as one Cookie header with those already held. */
const cookiesOf = (res: Response, held = '') =>
  [held, ...res.headers.getSetCookie().map((c) => c.split(';')[0])].filter(Boolean).join('; ');

async function main() {
  const server = await startBenchServer(dir);
  const pid = server.child.pid as number;
  try {
    const { apiKey, projectId } = await createBenchProject(server.url);
    const key = { 'x-api-key': apiKey };

    const began = performance.now();
    for (let r = 0; r < runs; r += 1) {
      const cases = Array.from({ length: CASES }, (_, i) => ({
        suite: `suite ${i % 50}`,
        name: `test ${i}`,
        duration_ms: (i * 7919 + r) % 1000,
        status: (i + r) % 97 === 0 ? 'failed' : 'passed',
        ...((i + r) % 97 === 0 ? { message: `expected ${i} to be ${r}` } : {}),
      }));
      const res = await fetch(`${server.url}/stats/ingest-tests`, {
        method: 'POST',
        headers: { ...key, 'content-type': 'application/json', 'idempotency-key': `b${r}` },
        body: JSON.stringify({ projectId, buildId: `b${r}`, branch: 'main', cases }),
      });
      if (res.status !== 200) throw new Error(`ingest ${res.status}: ${await res.text()}`);
    }
    const ingestS = (performance.now() - began) / 1000;

    await new Promise((resolve) => setTimeout(resolve, 2000));
    const measured = await measureExport(
      `${server.url}/stats/export?projectId=${projectId}&kind=tests`,
      key,
      pid,
    );

    // The Projects page, signed in: the project's counts and its share of the tables' bytes.
    const signIn = await fetch(`${server.url}/dashboard/sign-in`);
    let cookie = cookiesOf(signIn);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await signIn.text())?.[1] ?? '';
    const signedIn = await fetch(`${server.url}/dashboard/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, api_key: apiKey }).toString(),
    });
    cookie = cookiesOf(signedIn, cookie);
    const pageMs: number[] = [];
    let stored = '';
    for (let i = 0; i < 5; i += 1) {
      const at = performance.now();
      const page = await fetch(`${server.url}/dashboard/projects`, { headers: { cookie } });
      stored = /<span class="stored">([^<]*)<\/span>/.exec(await page.text())?.[1] ?? '';
      pageMs.push(performance.now() - at);
    }
    pageMs.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        backend: benchBackend(),
        results: runs * CASES,
        ingestS: +ingestS.toFixed(1),
        exportLines: measured.lines - 1,
        ...measured.figures,
        projectsPageMedianMs: +(pageMs[2] ?? 0).toFixed(0),
        stored,
      }),
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
