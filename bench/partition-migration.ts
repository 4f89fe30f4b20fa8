import postgres from 'postgres';
import { newRecordId } from '../server/domain/ids.js';
import { seriesOf } from '../server/domain/record-facts.js';
import { migrate, type Sql } from '../server/storage/postgres/pg-database.js';
import { pgIngest } from '../server/storage/postgres/pg-ingest.js';
import { pgMigrations } from '../server/storage/postgres/pg-migrations.js';
import {
  isPartitioned,
  MONTHS_AHEAD,
  monthStart,
  partitionsOf,
} from '../server/storage/postgres/pg-partitions.js';
import { openPgStorage } from '../server/storage/postgres/pg-storage.js';
import type { NewRecord } from '../server/storage/storage.js';
import { nearestRank } from './median.js';

/**
 * The online conversion of a PostgreSQL database of plain record tables (migration 18's) into
 * monthly partitions (pg-partitions.ts), with ingest beside it: `count` records (half events,
 * half metrics, over the last year) seeded by SQL into a database of its own, then the storage
 * opened as a server opens it (its partition keeper converts in the background) while `writers`
 * appends at a time go through the storage's real ingest path (group commit, durable). Prints the
 * conversion's time and the appends' latencies during it, and for 10 s before it (plain tables)
 * and after it (partitioned tables).
 *
 *   npm run build && node build/bench/partition-migration.js [count=1000000] [writers=8]
 *
 * BENCH_POSTGRES_URL names the maintenance database (default postgres://postgres@127.0.0.1:5432/postgres).
 */
const count = Number(process.argv[2] ?? 1_000_000);
const writers = Number(process.argv[3] ?? 8);
const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `ci_stats_bench_partitions_${process.pid}`;
const url = new URL(adminUrl);
url.pathname = `/${name}`;

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`CREATE DATABASE ${name}`);
const DAY = 86_400_000;
try {
  const now = Date.now();
  const seed = postgres(url.toString(), { max: 2, onnotice: () => {} }) as unknown as Sql;
  await migrate(seed, pgMigrations);
  await seed`INSERT INTO accounts (id, label, created_at) VALUES ('a', NULL, 'now')`;
  await seed`INSERT INTO projects (id, account_id, name, name_key, created_at)
             VALUES ('p', 'a', 'Web', 'web', 'now'), ('q', 'a', 'Api', 'api', 'now')`;
  // Seeded without the fold's queue (its triggers off): the conversion is measured, not a fold.
  await seed`ALTER TABLE events DISABLE TRIGGER USER`;
  await seed`ALTER TABLE metrics DISABLE TRIGGER USER`;
  const half = Math.floor(count / 2);
  const step = Math.floor((365 * DAY) / half);
  let t = performance.now();
  await seed`
    INSERT INTO metrics (id, project_id, payload, created_at, branch)
    SELECT gen_random_uuid()::text, 'p', json_build_object('duration_ms', i % 1000, 'branch', 'main')::text,
           ${now - 365 * DAY}::bigint + i::bigint * ${step}, 'main'
      FROM generate_series(0, ${half - 1}) AS i ORDER BY i`;
  await seed`
    INSERT INTO events (id, project_id, event_type, payload, created_at, branch, status)
    SELECT gen_random_uuid()::text, 'p', 'build', '{"status":"success"}',
           ${now - 365 * DAY}::bigint + i::bigint * ${step}, 'main', 'success'
      FROM generate_series(0, ${count - half - 1}) AS i ORDER BY i`;
  await seed`ALTER TABLE events ENABLE TRIGGER USER`;
  await seed`ALTER TABLE metrics ENABLE TRIGGER USER`;
  await seed`VACUUM ANALYZE events`;
  await seed`VACUUM ANALYZE metrics`;
  const [size] = await seed<{ size: string }[]>`
    SELECT pg_size_pretty(pg_total_relation_size('events') + pg_total_relation_size('metrics')) AS size`;
  console.log(
    `seeded ${count} records (${size?.size}) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  const record = (i: number): NewRecord => {
    const payload = { duration_ms: i % 1000, branch: 'main' };
    return {
      kind: 'metric',
      row: {
        id: newRecordId(),
        projectId: 'q',
        payload: JSON.stringify(payload),
        createdAt: Date.now(),
        branch: 'main',
      },
      series: seriesOf(payload),
    };
  };
  // The baseline: the same ingest for 10 s on the plain tables, through the ingest path alone
  // (no partition keeper), before the conversion.
  const plain: number[] = [];
  {
    const pool = postgres(url.toString(), { max: 10, onnotice: () => {} }) as unknown as Sql;
    const ingest = pgIngest(pool, { replicaId: 'bench', leaseMs: 30_000, foldEveryMs: 0 });
    const records = ingest.records(pool);
    const until = performance.now() + 10_000;
    await Promise.all(
      Array.from({ length: writers }, async (_, n) => {
        for (let i = n; performance.now() < until; i += writers) {
          const started = performance.now();
          await records.append(record(i));
          plain.push(performance.now() - started);
        }
      }),
    );
    await ingest.drain();
    await pool.end({ timeout: 1 });
  }
  const during: number[] = [];
  const after: number[] = [];
  let phase: 'during' | 'after' | 'done' = 'during';
  t = performance.now();
  const storage = await openPgStorage({ url: url.toString(), leaseMs: 30_000 });
  const writer = async (n: number) => {
    for (let i = n; phase !== 'done'; i += writers) {
      const started = performance.now();
      await storage.records.append(record(i));
      (phase === 'during' ? during : after).push(performance.now() - started);
    }
  };
  const running = Array.from({ length: writers }, (_, n) => writer(n));
  const last = `metrics_p${new Date(monthStart(now, MONTHS_AHEAD)).toISOString().slice(0, 7).replace('-', '')}`;
  while (
    !(await isPartitioned(seed, 'events')) ||
    !(await isPartitioned(seed, 'metrics')) ||
    !(await partitionsOf(seed, 'metrics')).some((p) => p.name === last)
  ) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const took = performance.now() - t;
  phase = 'after';
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  phase = 'done';
  await Promise.all(running);
  await storage.close();
  const [kept] = await seed<{ n: number }[]>`
    SELECT (SELECT count(*) FROM events WHERE project_id = 'p') + (SELECT count(*) FROM metrics WHERE project_id = 'p') AS n`;
  await seed.end({ timeout: 1 });
  const line = (what: string, values: number[]) =>
    `${what}: ${values.length} appends, p50 ${nearestRank(values, 0.5).toFixed(1)} ms, p99 ${nearestRank(values, 0.99).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`;
  console.log(
    `converted in ${(took / 1000).toFixed(1)} s (storage open to the last partition ahead); ${kept?.n} of ${count} seeded records kept`,
  );
  console.log(line('plain tables, before', plain));
  console.log(line('during the conversion', during));
  console.log(line('after it', after));
} finally {
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end({ timeout: 1 });
}
