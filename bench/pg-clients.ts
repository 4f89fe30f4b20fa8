import { randomUUID } from 'node:crypto';
import pg from 'pg';
import postgres from 'postgres';
import { median } from './median.js';

/**
 * `pg` (node-postgres) against `postgres` (porsager's) on the ingest workload, in this process
 * and without HTTP: `CONCURRENCY` callers each append an event and wait for its commit, again and
 * again, for a few seconds; the appends are stored either one INSERT each (naive), or grouped as
 * the server groups them (the appends queued meanwhile in one multi-row INSERT from a JSON
 * parameter, up to 4 groups committing at once). Each INSERT is a transaction of its own, which
 * PostgreSQL commits with synchronous_commit on (set on every connection) before answering, as
 * the server's groups without Idempotency-Key claims are. Reports appends per second and the
 * client process's CPU time per append (the server's cores are shared).
 */

const CONCURRENCY = 50;
const MAX_GROUPS = 4;
const MAX_GROUP = 1000;

interface Client {
  naive(row: EventRow): Promise<void>;
  /** Inserts the rows (JSON) in one statement. */
  group(rowsJson: string): Promise<void>;
  end(): Promise<void>;
}

interface EventRow {
  id: string;
  project_id: string;
  event_type: string;
  payload: string;
  created_at: number;
}

const INSERT_ONE = `INSERT INTO events (id, project_id, event_type, payload, created_at)
                    VALUES ($1, $2, $3, $4, $5)`;
const INSERT_MANY = `INSERT INTO events (id, project_id, event_type, payload, created_at)
  SELECT id, project_id, event_type, payload, created_at
    FROM json_to_recordset($1::text::json)
         AS r(id text, project_id text, event_type text, payload text, created_at bigint)`;
const values = (r: EventRow) => [r.id, r.project_id, r.event_type, r.payload, r.created_at];

function porsagerClient(url: string): Client {
  const sql = postgres(url, {
    max: 10,
    onnotice: () => {},
    connection: { synchronous_commit: 'on' },
  });
  return {
    naive: async (r) => {
      await sql.unsafe(INSERT_ONE, values(r));
    },
    group: async (json) => {
      await sql.unsafe(INSERT_MANY, [json]);
    },
    end: () => sql.end({ timeout: 1 }),
  };
}

function nodePostgresClient(url: string): Client {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    options: '-c synchronous_commit=on',
  });
  // An idle connection's error (the database dropped after the run) is no failure of the bench.
  pool.on('error', () => {});
  return {
    naive: async (r) => {
      await pool.query(INSERT_ONE, values(r));
    },
    group: async (json) => {
      await pool.query(INSERT_MANY, [json]);
    },
    end: () => pool.end(),
  };
}

/** The server's grouping, reduced to its core: queue, take all, commit together. */
function grouper(client: Client) {
  let queue: { row: EventRow; done: () => void; failed: (e: unknown) => void }[] = [];
  let running = 0;
  let scheduled = false;
  const flush = () => {
    const group = queue.slice(0, MAX_GROUP);
    queue = queue.slice(MAX_GROUP);
    running++;
    client
      .group(JSON.stringify(group.map((g) => g.row)))
      .then(
        () => {
          for (const g of group) g.done();
        },
        (error) => {
          for (const g of group) g.failed(error);
        },
      )
      .finally(() => {
        running--;
        schedule();
      });
  };
  const schedule = () => {
    if (scheduled || running >= MAX_GROUPS || queue.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      if (queue.length > 0 && running < MAX_GROUPS) flush();
    });
  };
  return (row: EventRow) =>
    new Promise<void>((done, failed) => {
      queue.push({ row, done, failed });
      schedule();
    });
}

async function drive(append: (row: EventRow) => Promise<void>, projectId: string, seconds: number) {
  const until = performance.now() + seconds * 1000;
  const cpu = process.cpuUsage();
  let count = 0;
  const payload = JSON.stringify({ duration_ms: 1234, ok: true, branch: 'main' });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await append({
          id: randomUUID(),
          project_id: projectId,
          event_type: 'build',
          payload,
          created_at: Date.now(),
        });
        count++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    perSecond: Math.round(count / seconds),
    cpuUsPerAppend: Math.round((used.user + used.system) / Math.max(count, 1)),
  };
}

export interface ClientFigures {
  perSecond: number;
  cpuUsPerAppend: number;
}

/** Each client × {naive, grouped}, `rounds` times in rotating order; medians. */
export async function compareClients(
  url: string,
  projectId: string,
  seconds: number,
  rounds: number,
): Promise<Record<string, ClientFigures>> {
  const clients = { postgres: porsagerClient(url), pg: nodePostgresClient(url) };
  const cases = Object.entries(clients).flatMap(([name, client]) => [
    [`${name} naive`, (row: EventRow) => client.naive(row)] as const,
    [`${name} grouped`, grouper(client)] as const,
  ]);
  const runs = new Map<string, ClientFigures[]>(cases.map(([name]) => [name, []]));
  try {
    for (const [, append] of cases) await drive(append, projectId, 1);
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < cases.length; i++) {
        const [name, append] = cases[(i + round) % cases.length] as (typeof cases)[number];
        const figures = await drive(append, projectId, seconds);
        runs.get(name)?.push(figures);
        process.stderr.write(
          `clients round ${round + 1} ${name}: ${figures.perSecond}/s, ${figures.cpuUsPerAppend} µs CPU per append\n`,
        );
      }
    }
  } finally {
    for (const client of Object.values(clients)) await client.end();
  }
  return Object.fromEntries(
    [...runs].map(([name, list]) => [
      name,
      {
        perSecond: Math.round(median(list.map((f) => f.perSecond))),
        cpuUsPerAppend: Math.round(median(list.map((f) => f.cpuUsPerAppend))),
      },
    ]),
  );
}
