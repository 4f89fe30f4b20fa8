import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriesBuckets } from '../../server/domain/bucket-aggregates.js';
import { readPlan } from '../../server/domain/time-buckets.js';
import type { OutboxJob } from '../../server/outbox/outbox-jobs.js';
import { OutboxWorker } from '../../server/outbox/outbox-worker.js';
import { openPgDatabase, type Sql } from '../../server/storage/postgres/pg-database.js';
import { type PgIngest, pgIngest } from '../../server/storage/postgres/pg-ingest.js';
import { OUTBOX_CHANNEL } from '../../server/storage/postgres/pg-outbox.js';
import type { IdempotencyClaim, NewRecord } from '../../server/storage/storage.js';

/**
 * The ingest repositories of the PostgreSQL backend, on a database of this file's own: grouped
 * appends, a failing append inside a group, Idempotency-Key races (in one process and across
 * two), read-back, statistics, and the outbox leases shared by replicas.
 */
const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/postgres';
const NAME = `ingest_${process.pid}_${randomBytes(4).toString('hex')}`;
const url = (() => {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${NAME}`;
  return u.toString();
})();

let admin: postgres.Sql;
let pool: Sql;
let other: Sql;
let ingest: PgIngest;
const opened: { stop(): Promise<void> }[] = [];

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

beforeAll(async () => {
  admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${NAME}`);
  // A default that would acknowledge before the WAL is flushed: the pool must override it.
  await admin.unsafe(`ALTER DATABASE ${NAME} SET synchronous_commit = off`);
  pool = await openPgDatabase({ url });
  other = await openPgDatabase({ url, max: 4 });
  // Statistics are folded only when a test asks (foldStats), never behind its back.
  ingest = pgIngest(pool, { replicaId: 'replica-a', leaseMs: 10_000, foldEveryMs: 0 });
  await pool`INSERT INTO accounts (id, label, created_at) VALUES ('acc', null, 'now')`;
  await pool`INSERT INTO projects (id, account_id, name, name_key, created_at) VALUES
    ('p1', 'acc', 'one', 'one', 'now'), ('p2', 'acc', 'two', 'two', 'now'),
    ('p3', 'acc', 'three', 'three', 'now'), ('p4', 'acc', 'four', 'four', 'now'),
    ('p5', 'acc', 'five', 'five', 'now')`;
});

afterAll(async () => {
  for (const worker of opened) await worker.stop();
  await ingest?.drain();
  await pool?.end({ timeout: 1 });
  await other?.end({ timeout: 1 });
  await admin?.unsafe(`DROP DATABASE IF EXISTS ${NAME} WITH (FORCE)`);
  await admin?.end({ timeout: 1 });
});

let ids = 0;
const nextId = () => `r-${(++ids).toString().padStart(6, '0')}`;

function event(
  projectId: string,
  fields: Partial<{ type: string; status: string; branch: string; at: number }> = {},
  notification?: OutboxJob,
): NewRecord {
  const payload = { status: fields.status, ci: fields.branch ? { branch: fields.branch } : {} };
  return {
    kind: 'event',
    row: {
      id: nextId(),
      projectId,
      eventType: fields.type ?? 'build',
      description: null,
      payload: JSON.stringify(payload),
      color: null,
      createdAt: fields.at ?? Date.now(),
      branch: fields.branch ?? null,
      status: fields.status ?? null,
    },
    notification,
  };
}

function metric(
  projectId: string,
  values: Record<string, number>,
  at = Date.now(),
  branch?: string,
): NewRecord {
  const payload = { ...values, ...(branch ? { ci: { branch } } : {}) };
  return {
    kind: 'metric',
    row: {
      id: nextId(),
      projectId,
      payload: JSON.stringify(payload),
      createdAt: at,
      branch: branch ?? null,
    },
    series: Object.entries(values),
  };
}

const claim = (
  key: string,
  fingerprint = 'f',
  response = `{"for":"${key}"}`,
): IdempotencyClaim => ({
  accountId: 'acc',
  key,
  fingerprint,
  response,
});

const queuedRecords = async () =>
  Number((await pool<{ n: number }[]>`SELECT count(*)::int AS n FROM stats_queue`)[0]?.n);

const aliasJob = (alias: string): OutboxJob => ({ kind: 'forwarding-remove-alias', alias });

describe('grouped appends', () => {
  it('commits the appends of one loop turn in one transaction, in order', async () => {
    const records = ingest.records(pool);
    const made = Array.from({ length: 40 }, (_, i) =>
      i % 2 ? event('p1', { status: 'success' }) : metric('p1', { size: i }),
    );
    const results = await Promise.all(made.map((r) => records.append(r)));
    expect(results.every((r) => r.stored)).toBe(true);
    const rows = await pool<{ id: string; tx: string }[]>`
      SELECT id, xmin::text AS tx FROM events WHERE project_id = 'p1'
      UNION ALL SELECT id, xmin::text FROM metrics WHERE project_id = 'p1'`;
    expect(rows).toHaveLength(40);
    // One transaction for all of them.
    expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
    const seqs = await pool<
      { id: string }[]
    >`SELECT id FROM metrics WHERE project_id = 'p1' ORDER BY seq`;
    expect(seqs.map((r) => r.id)).toEqual(
      made.filter((r) => r.kind === 'metric').map((r) => r.row.id),
    );
  });

  it('DURABILITY=normal turns synchronous_commit off on every connection of the pool', async () => {
    const relaxed = await openPgDatabase({ url, max: 2, durability: 'normal' });
    try {
      const settings = await Promise.all(
        [1, 2].map(() =>
          relaxed.begin(async (tx) => {
            // Two transactions at once: two connections of the pool.
            const [row] = await tx<{ synchronous_commit: string }[]>`SHOW synchronous_commit`;
            await new Promise((resolve) => setTimeout(resolve, 50));
            return row?.synchronous_commit;
          }),
        ),
      );
      expect(settings).toEqual(['off', 'off']);
    } finally {
      await relaxed.end({ timeout: 1 });
    }
  });

  it('answers only after the commit, with synchronous_commit on', async () => {
    // The database's default is off (beforeAll): every connection of the pool sets it on.
    const bare = postgres(url, { max: 1, onnotice: () => {} });
    const [fallback] = await bare<{ synchronous_commit: string }[]>`SHOW synchronous_commit`;
    await bare.end();
    expect(fallback?.synchronous_commit).toBe('off');
    const [setting] = await pool<{ synchronous_commit: string }[]>`SHOW synchronous_commit`;
    expect(setting?.synchronous_commit).toBe('on');
    const record = metric('p1', { late: 1 });
    let answered = false;
    let stored: Promise<unknown> | undefined;
    // Another transaction holds a lock the group's insert must wait for: until it lets go, the
    // group cannot commit, and the append must not be answered.
    await other.begin(async (tx) => {
      await tx`LOCK TABLE metrics IN SHARE MODE`;
      stored = ingest.records(pool).append(record);
      void stored.then(() => {
        answered = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(answered).toBe(false);
      const [before] = await tx<{ n: number }[]>`
        SELECT count(*)::int AS n FROM metrics WHERE id = ${record.row.id}`;
      expect(before?.n).toBe(0);
    });
    await stored;
    const [after] = await other<{ n: number }[]>`
      SELECT count(*)::int AS n FROM metrics WHERE id = ${record.row.id}`;
    expect(after?.n).toBe(1);
  });

  it('a failing append in a group fails alone; the others are stored', async () => {
    const records = ingest.records(pool);
    const good = Array.from({ length: 10 }, () =>
      event('p2', { status: 'failure' }, aliasJob('x')),
    );
    const bad = event('no-such-project');
    const settled = await Promise.allSettled([
      ...good.slice(0, 5).map((r) => records.append(r, claim(`iso-${r.row.id}`))),
      records.append(bad, claim('iso-bad')),
      ...good.slice(5).map((r) => records.append(r)),
    ]);
    expect(settled.map((s) => s.status)).toEqual([
      ...Array(5).fill('fulfilled'),
      'rejected',
      ...Array(5).fill('fulfilled'),
    ]);
    const stored = await pool<
      { id: string }[]
    >`SELECT id FROM events WHERE project_id = 'p2' ORDER BY seq`;
    expect(stored.map((r) => r.id)).toEqual(good.map((r) => r.row.id));
    // Nothing of the failed one: no key, no job.
    const [keys] = await pool<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM idempotency_keys WHERE key = 'iso-bad'`;
    expect(keys?.n).toBe(0);
    const [jobs] = await pool<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM outbox WHERE event_id = ANY(${good.map((r) => r.row.id)})`;
    expect(jobs?.n).toBe(10);
    // The bad key can be used again.
    await expect(records.append(event('p2'), claim('iso-bad'))).resolves.toEqual({ stored: true });
  });

  it('appends inside a caller transaction join it (and roll back with it)', async () => {
    const record = event('p2');
    await expect(
      pool.begin(async (tx) => {
        await ingest.records(tx as unknown as Sql).append(record, claim('in-tx'));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const [row] = await pool<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM events WHERE id = ${record.row.id}`;
    expect(row?.n).toBe(0);
    await pool.begin((tx) => ingest.records(tx as unknown as Sql).append(record, claim('in-tx')));
    const [stored] = await pool<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM events WHERE id = ${record.row.id}`;
    expect(stored?.n).toBe(1);
  });

  it('drain waits for every queued append', async () => {
    const record = metric('p2', { drained: 1 });
    void ingest.records(pool).append(record);
    await ingest.drain();
    const [row] = await other<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM metrics WHERE id = ${record.row.id}`;
    expect(row?.n).toBe(1);
  });
});

describe('idempotency claims', () => {
  it('two appends of one key in one turn: one stored, the other gets its answer', async () => {
    const records = ingest.records(pool);
    const first = event('p3');
    const second = event('p3');
    const [a, b] = await Promise.all([
      records.append(first, claim('same', 'fp-1', '{"id":1}')),
      records.append(second, claim('same', 'fp-2', '{"id":2}')),
    ]);
    expect(a).toEqual({ stored: true });
    expect(b).toEqual({ stored: false, earlier: { fingerprint: 'fp-1', response: '{"id":1}' } });
    const rows = await pool<
      { id: string }[]
    >`SELECT id FROM events WHERE id IN (${first.row.id}, ${second.row.id})`;
    expect(rows.map((r) => r.id)).toEqual([first.row.id]);
  });

  it('a group mixing a taken key, a new key and no key stores only the latter two, and counts only them', async () => {
    const records = ingest.records(pool);
    // Later than anything stored so far: times are kept as given (they never go back).
    const base = Date.now() + 1e9;
    await records.append(metric('p5', { size: 1 }, base), claim('mix-taken', 'fp-t', '{"t":1}'));
    const fresh = metric('p5', { size: 2 }, base + 2_000, 'main');
    const bare = metric('p5', { size: 3 }, base + 2_000);
    const noisy = event('p5', { branch: 'noisy', at: base + 2_000 }, aliasJob('mix@example.com'));
    const taken = metric('p5', { size: 100 }, base + 3_000, 'feature');
    // One loop turn: one group, one statement.
    const results = await Promise.all([
      records.append(fresh, claim('mix-fresh')),
      records.append(bare),
      records.append(noisy, claim('mix-fresh-2')),
      records.append(taken, claim('mix-taken', 'fp-x')),
    ]);
    expect(results.slice(0, 3)).toEqual([{ stored: true }, { stored: true }, { stored: true }]);
    expect(results[3]).toEqual({
      stored: false,
      earlier: { fingerprint: 'fp-t', response: '{"t":1}' },
    });
    const stored = await pool<{ id: string }[]>`
      SELECT id FROM metrics WHERE project_id = 'p5' ORDER BY seq`;
    expect(stored.map((r) => r.id).slice(1)).toEqual([fresh.row.id, bare.row.id]);
    // The series holds the three stored records; its last value is the later of the two at
    // base + 2 s in storage order, not the taken record's 100 at base + 3 s.
    const [series] = await pool<{ count: number; last_at: number; last_value: number }[]>`
      SELECT sum(count)::int AS count, max(last_at) AS last_at,
             (array_agg(last_value ORDER BY last_at DESC, last_seq DESC))[1] AS last_value
        FROM series WHERE project_id = 'p5' AND key = 'size'`;
    expect(series).toEqual({ count: 3, last_at: base + 2_000, last_value: 3 });
    // The taken record's branch is not listed; the stored ones' are, and the event's job is queued.
    const branches = await pool<{ branch: string }[]>`
      SELECT branch FROM branches WHERE project_id = 'p5' ORDER BY branch`;
    expect(branches.map((r) => r.branch)).toEqual(['main', 'noisy']);
    const [jobs] = await pool<{ n: number }[]>`
      SELECT count(*)::int AS n FROM outbox WHERE event_id = ${noisy.row.id}`;
    expect(jobs?.n).toBe(1);
  });

  it('a key already answered replays, and stores nothing', async () => {
    const again = event('p3');
    const result = await ingest.records(pool).append(again, claim('same', 'fp-3'));
    expect(result).toEqual({
      stored: false,
      earlier: { fingerprint: 'fp-1', response: '{"id":1}' },
    });
    const [row] = await pool<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM events WHERE id = ${again.row.id}`;
    expect(row?.n).toBe(0);
  });

  it('two processes racing on the same keys store each key once', async () => {
    const replica = pgIngest(other, { replicaId: 'replica-b', leaseMs: 10_000, foldEveryMs: 0 });
    const keys = Array.from({ length: 30 }, (_, i) => `race-${i}`);
    const made = keys.flatMap((key) => [
      [ingest, event('p3'), claim(key, 'a')] as const,
      [replica, event('p3'), claim(key, 'b')] as const,
    ]);
    const results = await Promise.all(
      made.map(([side, record, c]) =>
        side.records(side === ingest ? pool : other).append(record, c),
      ),
    );
    for (let i = 0; i < keys.length; i++) {
      const pair = [results[2 * i], results[2 * i + 1]];
      expect(pair.filter((r) => r?.stored)).toHaveLength(1);
      const replay = pair.find((r) => r && !r.stored);
      const winner = pair[0]?.stored ? 'a' : 'b';
      expect(replay).toEqual({
        stored: false,
        earlier: { fingerprint: winner, response: `{"for":"${keys[i]}"}` },
      });
    }
    const [row] = await pool<{ n: number }[]>`
      SELECT count(*)::int AS n FROM events WHERE id = ANY(${made.map(([, r]) => r.row.id)})`;
    expect(row?.n).toBe(keys.length);
    await replica.drain();
  });

  it('purge forgets old answers only', async () => {
    await pool`UPDATE idempotency_keys SET created_at = 5 WHERE key = 'same'`;
    expect(await ingest.idempotency(pool).purge(10)).toBe(1);
    expect(await ingest.idempotency(pool).purge(10)).toBe(0);
  });
});

describe('read-back', () => {
  it('pages newest first with filters, cursors and the notification state', async () => {
    const records = ingest.records(pool);
    const t0 = Date.UTC(2030, 0, 1);
    const made = [
      event('p4', { type: 'deploy', status: 'success', branch: 'main', at: t0 }, aliasJob('y')),
      event('p4', { type: 'build', status: 'failure', branch: 'dev', at: t0 + 1000 }),
      event('p4', { type: 'build', status: 'success', branch: 'main', at: t0 + 2000 }),
      event('p4', { type: 'build', status: 'success', branch: 'main', at: t0 + 3000 }),
    ];
    for (const r of made) await records.append(r);
    const all = await records.events('p4', {}, 2);
    expect(all.items.map((e) => e.id)).toEqual([made[3]?.row.id, made[2]?.row.id]);
    expect(all.nextBefore).not.toBeNull();
    const rest = await records.events('p4', {}, 2, all.nextBefore ?? undefined);
    expect(rest.items.map((e) => e.id)).toEqual([made[1]?.row.id, made[0]?.row.id]);
    expect(rest.nextBefore).toBeNull();
    expect(rest.items[1]?.notification).toEqual({
      status: 'pending',
      attempts: 0,
      lastError: null,
    });
    expect(rest.items[0]?.notification).toBeNull();
    expect(rest.items[1]?.created_at).toBe(new Date(t0).toISOString());
    const filtered = await records.events(
      'p4',
      { eventType: 'build', status: 'success', branch: 'main', from: t0 + 2000, to: t0 + 3000 },
      10,
    );
    expect(filtered.items.map((e) => e.id)).toEqual([made[2]?.row.id]);
  });

  it('metrics ignore type and status, and keep their payload', async () => {
    const records = ingest.records(pool);
    const t0 = Date.UTC(2030, 0, 2);
    const m = metric('p4', { 'a.b': 1.5, c: 2 }, t0, 'main');
    await records.append(m);
    const got = await records.metrics(
      'p4',
      { eventType: 'nothing', status: 'x', branch: 'main' },
      5,
    );
    expect(got.items).toEqual([
      {
        id: m.row.id,
        projectId: 'p4',
        payload: JSON.parse(m.row.payload as string),
        created_at: new Date(t0).toISOString(),
      },
    ]);
  });
});

describe('statistics', () => {
  it('keys, branches and series from the records', async () => {
    const records = ingest.records(pool);
    const stats = ingest.stats(pool);
    const t0 = Date.UTC(2030, 1, 1);
    await Promise.all([
      records.append(metric('p4', { size: 10 }, t0 + 10, 'zeta')),
      records.append(metric('p4', { size: 30 }, t0 + 20, 'Alpha')),
      records.append(metric('p4', { size: 20, other: 1 }, t0 + 20, 'beta')),
    ]);
    const keys = await stats.seriesKeys('p4', { limit: 100 });
    expect(keys.find((k) => k.key === 'size')).toEqual({
      key: 'size',
      count: 3,
      lastValue: 20,
      lastAt: t0 + 20,
    });
    expect(keys.map((k) => k.key)).toEqual([...keys.map((k) => k.key)].sort());
    // Byte order, as on SQLite: capitals first.
    expect(await stats.branches('p4')).toEqual(['Alpha', 'dev', 'main', 'beta', 'zeta'].sort());
    const plan = readPlan(t0, t0 + 60_000, 2);
    const data = await stats.seriesData('p4', 'size', undefined, plan);
    expect(data.cells).toEqual([]);
    expect(data.records.map((r) => [r.bucket, r.t, r.payload.size])).toEqual([
      [0, t0 + 10, 10],
      [0, t0 + 20, 30],
      [0, t0 + 20, 20],
    ]);
    const main = await stats.seriesData('p4', 'size', 'beta', plan);
    expect(main.records.map((r) => r.payload.size)).toEqual([20]);
    const events = await stats.eventData(
      'p4',
      { eventType: 'build' },
      readPlan(Date.UTC(2030, 0, 1), Date.UTC(2030, 0, 1) + 4000, 4),
    );
    // Counted by the database: one cell per bucket, no raw events.
    expect(events.events).toEqual([]);
    expect(events.cells).toEqual([
      { bucket: 1, success: 0, failure: 1, cancelled: 0, other: 0 },
      { bucket: 2, success: 1, failure: 0, cancelled: 0, other: 0 },
      { bucket: 3, success: 1, failure: 0, cancelled: 0, other: 0 },
    ]);
    expect(await stats.latestStatus('p4', { branch: 'dev' })).toBe('failure');
    expect(await stats.latestStatus('p4', { eventType: 'nothing' })).toBeNull();
  });
});

describe('record times', () => {
  it('a clock that steps back holds the time still', async () => {
    const records = ingest.records(pool);
    const t0 = Date.UTC(2030, 1, 2);
    const made = [metric('p2', { tick: 1 }, t0 + 300_000), metric('p2', { tick: 2 }, t0 + 60_000)];
    for (const r of made) await records.append(r);
    const page = await records.metrics('p2', { from: t0 }, 10);
    expect(page.items.map((m) => m.created_at)).toEqual([
      new Date(t0 + 300_000).toISOString(),
      new Date(t0 + 300_000).toISOString(),
    ]);
  });
});

describe('series keys written by several processes', () => {
  it('are summed over their rows, the latest time then the latest record giving the value', async () => {
    const replica = pgIngest(other, { replicaId: 'replica-c', leaseMs: 10_000, foldEveryMs: 0 });
    const t0 = Date.UTC(2030, 2, 1);
    const mine = ingest.records(pool);
    const theirs = replica.records(other);
    for (let i = 0; i < 5; i++) {
      await Promise.all([
        mine.append(metric('p3', { shared: i }, t0 + i)),
        theirs.append(metric('p3', { shared: 100 + i }, t0 + i)),
      ]);
    }
    await theirs.append(metric('p3', { shared: 7 }, t0 + 4));
    await mine.append(metric('p3', { shared: 8 }, t0 + 4));
    const keys = await ingest.stats(pool).seriesKeys('p3', { limit: 100 });
    expect(keys.find((k) => k.key === 'shared')).toEqual({
      key: 'shared',
      count: 12,
      lastValue: 8,
      lastAt: t0 + 4,
    });
    await replica.drain();
  });
});

describe('statistics cells', () => {
  const HOUR = 3_600_000;
  /** The plan's one bucket as the service sums it: cells, then the edges' values. */
  async function lastOf(projectId: string, from: number) {
    const data = await ingest
      .stats(pool)
      .seriesData(projectId, 'v', undefined, readPlan(from, from + HOUR, 1));
    expect(data.records).toEqual([]);
    const [bucket] = seriesBuckets(readPlan(from, from + HOUR, 1), data.cells);
    return bucket && [bucket.count, bucket.last];
  }

  it('on equal times the record stored later is last, even when it was folded first', async () => {
    const t0 = Date.UTC(2031, 0, 1);
    const records = ingest.records(pool);
    // The first record takes its seq, then waits uncommitted (stored as any writer would: the
    // table's trigger queues it) while a later one commits and is folded: the later one holds
    // the cell when the first arrives.
    await other.begin(async (tx) => {
      await tx`INSERT INTO metrics (id, project_id, payload, created_at)
               VALUES (${nextId()}, 'p5', '{"v":1}', ${t0 + 30_000})`;
      await records.append(metric('p5', { v: 2 }, t0 + 30_000));
      await ingest.foldStats();
      expect(await lastOf('p5', t0)).toEqual([1, 2]);
    });
    // Queued: read from the record, beside the cell.
    expect(await queuedRecords()).toBe(1);
    expect(await lastOf('p5', t0)).toEqual([2, 2]);
    // Folded into the cell that holds the later one.
    await ingest.foldStats();
    expect(await queuedRecords()).toBe(0);
    expect(await lastOf('p5', t0)).toEqual([2, 2]);
  });

  it('two replicas folding at once count every record once', async () => {
    const replica = pgIngest(other, { replicaId: 'replica-f', leaseMs: 10_000, foldEveryMs: 0 });
    const t0 = Date.UTC(2031, 1, 1);
    const mine = ingest.records(pool);
    const theirs = replica.records(other);
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? mine : theirs).append(metric('p5', { v: i }, t0 + round * 1000 + i)),
        ),
      );
      await Promise.all([ingest.foldStats(), replica.foldStats(), ingest.foldStats()]);
    }
    expect(await queuedRecords()).toBe(0);
    const [count] = (await lastOf('p5', t0)) ?? [];
    expect(count).toBe(200);
    const [cells] = await pool<{ n: number }[]>`
      SELECT sum(count)::int AS n FROM series_totals
       WHERE project_id = 'p5' AND key = 'v' AND unit = 60000 AND start >= ${t0}`;
    expect(cells?.n).toBe(200);
    await replica.drain();
  });
});

describe('outbox leases', () => {
  async function freshJobs(count: number, prefix: string): Promise<number[]> {
    await pool`UPDATE outbox SET status = 'delivered', payload = NULL WHERE status = 'pending'`;
    const outbox = ingest.outbox(pool);
    for (let i = 0; i < count; i++) await outbox.enqueue(aliasJob(`${prefix}-${i}`));
    const rows = await pool<
      { id: number }[]
    >`SELECT id FROM outbox WHERE status = 'pending' ORDER BY id`;
    return rows.map((r) => r.id);
  }

  it('enqueue notifies every listener on commit, and only then', async () => {
    const heard: string[] = [];
    const listener = await other.listen(OUTBOX_CHANNEL, () => heard.push('job'));
    await pool.begin(async (tx) => {
      await ingest.outbox(tx as unknown as Sql).enqueue(aliasJob('n1'));
    });
    await expect.poll(() => heard.length).toBe(1);
    await pool
      .begin(async (tx) => {
        await ingest.outbox(tx as unknown as Sql).enqueue(aliasJob('n2'));
        throw new Error('rollback');
      })
      .catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard.length).toBe(1);
    await listener.unlisten();
  });

  it('a claimed job is held by one replica; outcomes only by the holder', async () => {
    const ids = await freshJobs(3, 'hold');
    const a = ingest.outbox(pool);
    const b = pgIngest(other, { replicaId: 'replica-b', leaseMs: 10_000, foldEveryMs: 0 }).outbox(
      other,
    );
    const now = Date.now();
    const [claimedA, claimedB] = await Promise.all([a.claimDue(now, 10), b.claimDue(now, 10)]);
    expect([...claimedA, ...claimedB].map((j) => j.id).sort()).toEqual(ids);
    const mine = claimedA.length > 0 ? a : b;
    const theirs = mine === a ? b : a;
    const [job] = claimedA.length > 0 ? claimedA : claimedB;
    expect(await theirs.renewClaim(job?.id as number, now)).toBe(false);
    await theirs.delivered(job?.id as number, 1);
    const [row] = await pool<
      { status: string }[]
    >`SELECT status FROM outbox WHERE id = ${job?.id as number}`;
    expect(row?.status).toBe('pending');
    // The other replica knows when the lease can run out.
    expect(await theirs.nextDueAt()).toBeGreaterThanOrEqual(now + 10_000);
    expect(await mine.renewClaim(job?.id as number, now)).toBe(true);
    await mine.delivered(job?.id as number, 1);
    const [done] = await pool<
      { status: string; payload: string | null; leased_by: string | null }[]
    >`
      SELECT status, payload, leased_by FROM outbox WHERE id = ${job?.id as number}`;
    expect(done).toEqual({ status: 'delivered', payload: null, leased_by: null });
    for (const j of [...claimedA, ...claimedB]) await (claimedA.includes(j) ? a : b).release(j.id);
  });

  it("a dead replica's lease is taken over once it runs out; a living one's is renewed", async () => {
    const ids = await freshJobs(2, 'lease');
    const dead = pgIngest(other, { replicaId: 'dead', leaseMs: 600 });
    const living = pgIngest(other, { replicaId: 'living', leaseMs: 600 });
    const survivor = ingest.outbox(pool);
    const [first, second] = ids as [number, number];
    // Each claims one job (by limit 1), and `dead` stops renewing (as a killed process would).
    expect((await dead.outbox(other).claimDue(Date.now(), 1)).map((j) => j.id)).toEqual([first]);
    expect((await living.outbox(other).claimDue(Date.now(), 1)).map((j) => j.id)).toEqual([second]);
    await dead.drain();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const taken = await survivor.claimDue(Date.now(), 10);
    expect(taken.map((j) => j.id)).toEqual([first]);
    expect(await dead.outbox(other).renewClaim(first, Date.now())).toBe(false);
    expect(await living.outbox(other).renewClaim(second, Date.now())).toBe(true);
    await survivor.delivered(first, 1);
    await living.outbox(other).delivered(second, 1);
    await living.drain();
  });

  it('two workers: jobs waiting long in one lane are sent once each, never by both', async () => {
    const ids = await freshJobs(12, 'lane');
    const sent: { alias: string; by: string }[] = [];
    const workers = ['w1', 'w2'].map((replicaId) => {
      const side = pgIngest(other, { replicaId, leaseMs: 400 });
      const worker = new OutboxWorker({
        outbox: side.outbox(other),
        execute: async (job) => {
          if (job.kind === 'forwarding-remove-alias')
            sent.push({ alias: job.alias, by: replicaId });
          await new Promise((resolve) => setTimeout(resolve, 100));
        },
        policy: { baseMs: 100, capMs: 1000, maxAttempts: 3 },
        log: quiet,
        laneOf: () => 'one-webhook',
      });
      const stop = async () => {
        await worker.stop();
        await side.drain();
      };
      opened.push({ stop });
      return { worker, stop };
    });
    // Each wakes the other often: a replica that could steal a job looks all the time.
    for (const { worker } of workers) worker.start();
    const poke = setInterval(() => {
      for (const { worker } of workers) worker.wake();
    }, 20);
    // 12 jobs x 100 ms in one lane: well beyond a 400 ms lease.
    await expect
      .poll(
        async () =>
          (
            await pool<
              { n: number }[]
            >`SELECT count(*)::int AS n FROM outbox WHERE status = 'pending'`
          )[0]?.n,
        {
          timeout: 15_000,
          interval: 100,
        },
      )
      .toBe(0);
    clearInterval(poke);
    for (const { stop } of workers) await stop();
    expect(sent.map((s) => s.alias).sort()).toEqual(ids.map((_, i) => `lane-${i}`).sort());
  });

  it("an idle worker delivers a killed replica's jobs within a lease and a poll", async () => {
    const ids = await freshJobs(3, 'killed');
    const killed = pgIngest(other, { replicaId: 'killed', leaseMs: 1000 });
    expect(await killed.outbox(other).claimDue(Date.now(), 10)).toHaveLength(3);
    await killed.drain();
    const survivor = pgIngest(other, { replicaId: 'survivor', leaseMs: 1000 });
    const sent: string[] = [];
    const worker = new OutboxWorker({
      outbox: survivor.outbox(other),
      execute: async (job) => {
        if (job.kind === 'forwarding-remove-alias') sent.push(job.alias);
      },
      policy: { baseMs: 100, capMs: 1000, maxAttempts: 3 },
      log: quiet,
    });
    opened.push({ stop: () => worker.stop() });
    const started = Date.now();
    worker.start();
    // No notification comes: the worker looks again when the lease can run out.
    await expect.poll(() => sent.length, { timeout: 5000, interval: 50 }).toBe(ids.length);
    expect(Date.now() - started).toBeLessThan(3000);
    await worker.stop();
    await survivor.drain();
  });
});
