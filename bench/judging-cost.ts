import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newRecordId } from '../server/domain/ids.js';
import { branchOf, seriesOf } from '../server/domain/record-facts.js';
import { judgeBatch } from '../server/services/verdicts/judging.js';
import { openPgStorage } from '../server/storage/postgres/pg-storage.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../server/storage/storage.js';
import { withBenchDatabase } from './bench-database.js';

/**
 * What judging costs per metric record, in-process and on SQLite, with nothing else running:
 * `count` records of E8's bench payload stored through the storage's own `append` (as ingest
 * stores them, handing judging the parsed payload), then judged 200 at a time as the judging
 * worker does. Prints wall and CPU time per judged record. With `--store-only` it stores and does
 * not judge, so that two runs under `valgrind --tool=callgrind` give judging's instructions as
 * their difference (BENCHMARKS.md, issue 31). With `--on-main` each record names its branch
 * (main) and a commit under `ci`, as a CI run's records do: judging then also reads the default
 * branch and brings the series' change points up to date, which E8's records (neither) skip.
 *
 *   node build/bench/judging-cost.js 20000 [--on-main]
 *   valgrind --tool=callgrind node --jitless build/bench/judging-cost.js 2000 [--store-only] [--on-main]
 *
 * The directory is TMPDIR's (on `/dev/shm`, fsync costs nothing and only CPU is measured). With
 * BENCH_DATABASE_URL set it runs on PostgreSQL instead, in a database of its own: there a batch's
 * round trips, not its CPU, set the pace, and the wall time per record is the figure.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node build/bench/judging-cost.js 10000
 */
const count = Number(process.argv[2] ?? 20_000);
const storeOnly = process.argv.includes('--store-only');
const BATCH = 200;

const databaseUrl = process.env.BENCH_DATABASE_URL;
if (databaseUrl === undefined) {
  const dir = mkdtempSync(join(tmpdir(), 'ci-stats-judging-'));
  try {
    await measure(await openSqliteStorage({ path: join(dir, 'stats.db'), durability: 'full' }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  await withBenchDatabase(
    databaseUrl,
    async (url) => measure(await openPgStorage({ url, leaseMs: 30_000 })),
    'judging_bench',
  );
}

async function measure(storage: Storage): Promise<void> {
  try {
    const account = await storage.accounts.create('bench', {
      digest: { hash: 'x'.repeat(64), prefix: 'cis_bench' },
      label: null,
      scope: 'full',
      projectIds: null,
    });
    const project = await storage.projects.create(account.accountId, 'bench', 'bench');
    if (!project) throw new Error('no project');
    const e8 = { duration_ms: 1234, ok: true, branch: 'main', commit: '0123456789abcdef' };
    const ci = { branch: 'main', commit: '0123456789abcdef0123456789abcdef01234567' };
    const payload = process.argv.includes('--on-main') ? { duration_ms: 1234, ok: true, ci } : e8;
    for (let i = 0; i < count; i += 500) {
      const group = Array.from({ length: Math.min(500, count - i) }, () =>
        storage.records.append({
          kind: 'metric',
          row: {
            id: newRecordId(),
            projectId: project.id,
            payload: JSON.stringify(payload),
            createdAt: Date.now(),
            branch: branchOf(payload),
          },
          series: seriesOf(payload),
          parsed: payload,
        }),
      );
      await Promise.all(group);
    }
    if (!storeOnly) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      let judged = 0;
      for (;;) {
        const { records: n } = await storage.lock('verdicts', () =>
          storage.transaction((tx) => judgeBatch(tx, BATCH)),
        );
        judged += n;
        if (n < BATCH) break;
      }
      const wall = performance.now() - started;
      const used = process.cpuUsage(cpu);
      console.log(
        `${judged} records judged: ${((wall * 1000) / judged).toFixed(2)} µs wall, ` +
          `${((used.user + used.system) / judged).toFixed(2)} µs CPU per record`,
      );
    }
  } finally {
    await storage.close();
  }
}
