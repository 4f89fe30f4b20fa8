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
import { startServerProcess } from '../test/helpers/process.js';
import { measureExport } from './export-measure.js';

const runs = Number(process.argv[2] ?? 40);
const CASES = 5_000;
const dir = mkdtempSync(join(tmpdir(), 'tests-export-'));
const ADMIN = 'bench-admin-token-0123456789';

/** The cookies a response sets, as one Cookie header with those already held. */
const cookiesOf = (res: Response, held = '') =>
  [held, ...res.headers.getSetCookie().map((c) => c.split(';')[0])].filter(Boolean).join('; ');

async function main() {
  const env: Record<string, string> = { ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' };
  if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
  else env.DATABASE_PATH = join(dir, 'stats.db');
  const server = await startServerProcess(env);
  const pid = server.child.pid as number;
  try {
    const admin = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((res) => res.json() as Promise<Record<string, string>>);
    const { accountId, apiKey } = await admin('/admin/accounts', { label: 'bench' });
    const { id: projectId } = await admin(`/admin/accounts/${accountId}/projects`, { name: 'b' });
    const key = { 'x-api-key': apiKey as string };

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
      body: new URLSearchParams({ _csrf: csrf, api_key: apiKey as string }).toString(),
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
        backend: process.env.DATABASE_URL ? 'postgres' : 'sqlite',
        results: runs * CASES,
        ingestS: +ingestS.toFixed(1),
        exportLines: measured.lines - 1,
        exportMb: measured.exportMb,
        exportS: measured.exportS,
        rssBeforeMb: measured.rssBeforeMb,
        rssPeakMb: measured.rssPeakMb,
        rssGrowthMb: measured.rssGrowthMb,
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
