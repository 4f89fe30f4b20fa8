import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import postgres from 'postgres';

/**
 * The PostgreSQL yardstick: a bare Fastify POST route that stores each request in a transaction
 * of its own (one INSERT into the server's events table, committed with synchronous_commit on)
 * and answers after the commit, like E7 without grouping, validation or authentication.
 * `NAIVE_CLIENT` picks the client: `postgres` (porsager's, the server's) or `pg` (node-postgres);
 * both pooled with 10 connections, as the server is. `NAIVE_MODE` picks the transaction:
 * `statement`, the INSERT alone (PostgreSQL commits it by itself: one round trip, the fastest
 * naive form), or `transaction`, BEGIN, SET LOCAL synchronous_commit, the INSERT and COMMIT.
 */
const url = process.env.NAIVE_DATABASE_URL as string;
const client = process.env.NAIVE_CLIENT ?? 'postgres';
const mode = process.env.NAIVE_MODE ?? 'statement';

interface Row {
  id: string;
  projectId: string;
  eventType: string;
  description: string | null;
  payload: string | null;
  color: number | null;
  createdAt: number;
}

const INSERT = `INSERT INTO events (id, project_id, event_type, description, payload, color, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)`;

const params = (r: Row) => [
  r.id,
  r.projectId,
  r.eventType,
  r.description,
  r.payload,
  r.color,
  r.createdAt,
];

function porsager() {
  const sql = postgres(url, {
    max: 10,
    onnotice: () => {},
    connection: { synchronous_commit: 'on' },
  });
  if (mode === 'statement') return (r: Row) => sql.unsafe(INSERT, params(r));
  return (r: Row) =>
    sql.begin((tx) => [tx`SET LOCAL synchronous_commit TO on`, tx.unsafe(INSERT, params(r))]);
}

function nodePostgres() {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    options: '-c synchronous_commit=on',
  });
  pool.on('error', () => {});
  if (mode === 'statement') return (r: Row) => pool.query(INSERT, params(r));
  return async (r: Row) => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL synchronous_commit TO on');
      await c.query(INSERT, params(r));
      await c.query('COMMIT');
    } catch (error) {
      await c.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      c.release();
    }
  };
}

const store = client === 'pg' ? nodePostgres() : porsager();
const app = Fastify({ logger: false });
app.post('/ingest', async (request, reply) => {
  const body = request.body as {
    projectId: string;
    eventType: string;
    description?: string;
    payload?: unknown;
    color?: number;
  };
  const id = randomUUID();
  await store({
    id,
    projectId: body.projectId,
    eventType: body.eventType,
    description: body.description ?? null,
    payload: body.payload === undefined ? null : JSON.stringify(body.payload),
    color: body.color ?? null,
    createdAt: Date.now(),
  });
  return reply.code(201).send({ message: 'Event created', id });
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
