import { once } from 'node:events';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { selectColumn } from '../helpers/database.js';
import { FakeService } from '../helpers/fake-service.js';
import type { ServerProcess } from '../helpers/process.js';
import { startReplicas } from '../helpers/replicas.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * kill -9 of one of two replicas in the middle of a stream of E7 and E8 requests sent to both:
 * every record answered 200 by either is in the database exactly once, and the chat notifications
 * the killed replica had leased (Discord hangs while the load runs, so it holds some) are
 * delivered by the other one once their lease runs out, each exactly once.
 */

const KEY = 'replica-crash-key-0123456789abcdefghijklmnopqrstuvwxyz';
const CLIENTS = 16;
/** The load runs at least this long, and until this many records were acknowledged. */
const LOAD_MS = 2_500;
const ACKNOWLEDGED = 300;
const LOAD_LIMIT_MS = 30_000;
/** Several webhooks, so a replica delivers to several lanes at once. */
const WEBHOOKS = Array.from(
  { length: 6 },
  (_, n) => `https://discord.com/api/webhooks/10000000000000000${n}/crash_token_${n}_abcdefghijkl`,
);
const OUTBOUND_TIMEOUT_MS = 1_000;
/** What the server makes of OUTBOUND_TIMEOUT_MS (see open-storage.ts): 2 x timeout + 5 s. */
const LEASE_MS = 2 * OUTBOUND_TIMEOUT_MS + 5_000;

let database: TestDatabase;
let discord: FakeService;
let replicas: ServerProcess[];
beforeEach(async () => {
  replicas = [];
  database = await createTestDatabase();
  discord = new FakeService();
  await discord.start();
});
afterEach(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await discord.stop();
  await database.drop();
});

it('no acknowledged record is lost or duplicated, and the dead replica’s jobs are delivered once', async () => {
  // Discord hangs while the load runs: each replica's worker holds the jobs it claimed.
  let hold = true;
  discord.script(() => (hold ? { hang: true } : { status: 200, body: { id: 'm' } }));
  const env = {
    BOOTSTRAP_API_KEY: KEY,
    DISCORD_API_ORIGIN: discord.origin,
    OUTBOUND_TIMEOUT_MS: String(OUTBOUND_TIMEOUT_MS),
    OUTBOX_RETRY_BASE_MS: '20',
    OUTBOX_MAX_ATTEMPTS: '100',
  };
  // The victim starts alone and takes the first jobs: the only `leased_by` then is its own.
  const [victim] = (await startReplicas(database, 1, env)) as [ServerProcess];
  replicas.push(victim);
  const projectId = /project id:\s+(\S+)/.exec(victim.output())?.[1] as string;
  expect(projectId).toBeDefined();
  const notified = new Map<string, string>();
  for (const [n, url] of WEBHOOKS.entries()) {
    const res = await fetch(`${victim.url}/stats/ingest-events`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        projectId,
        eventType: 'crash',
        chatWebhook: { url, title: `crash-first-${n}` },
      }),
    });
    expect(res.status).toBe(200);
    notified.set(((await res.json()) as { id: string }).id, `crash-first-${n}`);
  }
  await expect
    .poll(() =>
      selectColumn(database, 'SELECT DISTINCT leased_by FROM outbox WHERE leased_by IS NOT NULL'),
    )
    .toHaveLength(1);
  const victimId = (
    await selectColumn(
      database,
      'SELECT DISTINCT leased_by FROM outbox WHERE leased_by IS NOT NULL',
    )
  )[0];
  const [survivor] = (await startReplicas(database, 1, env)) as [ServerProcess];
  replicas.push(survivor);

  const acknowledged = { events: [] as string[], metrics: [] as string[] };
  let stopped = false;
  const client = async (n: number) => {
    const base = (n % 2 === 0 ? victim : survivor).url;
    for (let i = 0; !stopped; i++) {
      const kind = (n + i) % 3;
      const title = `crash-${n}-${i}`;
      const body =
        kind === 2
          ? { projectId, payload: { n, i } }
          : {
              projectId,
              eventType: 'crash',
              payload: { n, i },
              ...(kind === 0
                ? { chatWebhook: { url: WEBHOOKS[(n + i) % WEBHOOKS.length], title } }
                : {}),
            };
      try {
        const res = await fetch(
          `${base}/stats/${kind === 2 ? 'ingest-metrics' : 'ingest-events'}`,
          {
            method: 'POST',
            headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          },
        );
        if (res.status === 200) {
          const { id } = (await res.json()) as { id: string };
          (kind === 2 ? acknowledged.metrics : acknowledged.events).push(id);
          if (kind === 0) notified.set(id, title);
        }
      } catch {
        // The connection died with the replica: this request was never acknowledged.
        if (base === victim.url) return;
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
  const loadStarted = Date.now();
  const total = () => acknowledged.events.length + acknowledged.metrics.length;
  while (
    Date.now() - loadStarted < LOAD_LIMIT_MS &&
    (Date.now() - loadStarted < LOAD_MS || total() < ACKNOWLEDGED)
  ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  victim.child.kill('SIGKILL');
  await once(victim.child, 'exit');
  const killedAt = Date.now();
  stopped = true;
  await Promise.all(clients);
  hold = false;
  expect(total()).toBeGreaterThanOrEqual(ACKNOWLEDGED);

  for (const table of ['events', 'metrics'] as const) {
    const stored = (await selectColumn(database, `SELECT id FROM ${table}`)) as string[];
    const counts = new Map<string, number>();
    for (const id of stored) counts.set(id, (counts.get(id) ?? 0) + 1);
    const missing = acknowledged[table].filter((id) => !counts.has(id));
    const twice = [...counts].filter(([, n]) => n > 1);
    expect({ table, missing, twice }).toEqual({ table, missing: [], twice: [] });
  }

  // What the victim had claimed when it died: taken over once the lease runs out.
  const orphaned = (await selectColumn(
    database,
    "SELECT event_id FROM outbox WHERE status = 'pending' AND leased_by = ?",
    victimId,
  )) as string[];
  expect(orphaned.length, 'the killed replica held no job: nothing was taken over').toBeGreaterThan(
    0,
  );

  // Every notification acknowledged by either replica is delivered, exactly once.
  await expect
    .poll(() => selectColumn(database, "SELECT COUNT(*) FROM outbox WHERE status <> 'delivered'"), {
      timeout: LEASE_MS + 15_000,
      interval: 250,
    })
    .toEqual([0]);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const delivered = discord.requests
    .filter((r) => r.replied === 200)
    .map((r) => /crash-[a-z0-9]+-\d+/.exec(JSON.stringify(r.body))?.[0] as string);
  // Unacknowledged events (their answer lost with the replica) may have been stored and sent too.
  const titles = [...notified.values()];
  const counts = new Map<string, number>();
  for (const title of delivered) counts.set(title, (counts.get(title) ?? 0) + 1);
  expect({
    missing: titles.filter((title) => !counts.has(title)),
    twice: [...counts].filter(([, n]) => n > 1),
  }).toEqual({ missing: [], twice: [] });
  // The victim's jobs were delivered after its death, by the survivor, once each.
  const late = discord.requests.filter((r) => r.replied === 200 && r.at >= killedAt);
  for (const id of orphaned) {
    const title = notified.get(id);
    if (title === undefined) continue;
    expect(late.filter((r) => JSON.stringify(r.body).includes(`"${title}"`))).toHaveLength(1);
  }
  expect(survivor.child.exitCode).toBeNull();
}, 90_000);
