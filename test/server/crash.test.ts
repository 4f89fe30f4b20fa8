import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServerProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';

/**
 * kill -9 in the middle of a stream of E7 and E8 requests: after a restart on the same file, every
 * record that was answered 200 is there, exactly once. (A killed process loses nothing it had
 * written; surviving power loss is what synchronous=FULL adds, and no test here can pull a plug.)
 */

const KEY = 'crash-test-key-0123456789abcdefghijklmnopqrstuvwxyz';
const CLIENTS = 32;
/**
 * The server is killed once this many records were acknowledged (several groups' worth, with
 * requests of all 32 clients in flight), however long a loaded machine takes to get there...
 */
const ACKNOWLEDGED_BEFORE_KILL = 2_000;
/** ...up to this long: a server that cannot acknowledge that many in a minute fails the test. */
const LOAD_CAP_MS = 60_000;

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('no acknowledged record is lost or duplicated by kill -9', {
  timeout: LOAD_CAP_MS + 30_000,
}, async () => {
  // As many requests as the clients can send: the rate limit is not what this test is about.
  const env = {
    DATABASE_PATH: join(dir, 'stats.db'),
    BOOTSTRAP_API_KEY: KEY,
    RATE_LIMIT_INGEST_PER_MINUTE: '0',
  };
  const server = await startServerProcess(env);
  const projectId = /project id:\s+(\S+)/.exec(server.output())?.[1] as string;
  const acknowledged = { events: [] as string[], metrics: [] as string[] };
  let killed = false;
  let enough: () => void = () => {};
  const enoughAcknowledged = new Promise<void>((resolve) => {
    enough = resolve;
  });
  const count = () => acknowledged.events.length + acknowledged.metrics.length;

  const client = async (n: number) => {
    for (let i = 0; !killed; i++) {
      const event = (n + i) % 2 === 0;
      try {
        const res = await fetch(
          `${server.url}/stats/${event ? 'ingest-events' : 'ingest-metrics'}`,
          {
            method: 'POST',
            headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
            body: JSON.stringify(
              event
                ? { projectId, eventType: 'crash', payload: { n, i } }
                : { projectId, payload: { n, i } },
            ),
          },
        );
        if (res.status === 200) {
          const { id } = (await res.json()) as { id: string };
          (event ? acknowledged.events : acknowledged.metrics).push(id);
          if (count() >= ACKNOWLEDGED_BEFORE_KILL) enough();
        }
      } catch {
        // The connection died with the server: this request was never acknowledged.
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
  let cap: NodeJS.Timeout | undefined;
  await Promise.race([
    enoughAcknowledged,
    new Promise((resolve) => {
      cap = setTimeout(resolve, LOAD_CAP_MS);
    }),
  ]);
  clearTimeout(cap);
  server.child.kill('SIGKILL');
  await once(server.child, 'exit');
  killed = true;
  await Promise.all(clients);
  expect(count()).toBeGreaterThanOrEqual(ACKNOWLEDGED_BEFORE_KILL);

  // The restarted server recovers the WAL; then the file is read as it stands.
  const again = await startServerProcess(env);
  const db = new Database(env.DATABASE_PATH, { readonly: true });
  try {
    for (const table of ['events', 'metrics'] as const) {
      const stored = db.prepare(`SELECT id FROM ${table}`).pluck().all() as string[];
      const counts = new Map<string, number>();
      for (const id of stored) counts.set(id, (counts.get(id) ?? 0) + 1);
      const missing = acknowledged[table].filter((id) => !counts.has(id));
      const twice = [...counts].filter(([, n]) => n > 1);
      expect({ table, missing, twice }).toEqual({ table, missing: [], twice: [] });
    }
  } finally {
    db.close();
    expect(await again.stop()).toBe(0);
  }
});
