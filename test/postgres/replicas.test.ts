import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import type { EventPage } from '../../contract/readback.js';
import { selectColumn } from '../helpers/database.js';
import { FakeService } from '../helpers/fake-service.js';
import type { ServerProcess } from '../helpers/process.js';
import { createAccount, createKey, revokeKey, send, startReplicas } from '../helpers/replicas.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Three server processes on one fresh PostgreSQL database, as replicas behind a load balancer
 * are: whichever replica a request reaches, E3 flips stay atomic, E5's uniqueness holds, an
 * Idempotency-Key retry is replayed, E2 and E5 of one account never interleave, every chat
 * notification is delivered exactly once, and a revoked key stops working everywhere.
 */

const BOOTSTRAP_KEY = 'replica-bootstrap-key-0123456789abcdefghijklmnop';
const WEBHOOK = 'https://discord.com/api/webhooks/123456789012345678/replica_TOKEN_abcdefghijk';

let database: TestDatabase;
let discord: FakeService;
let improvmx: FakeService;
let replicas: ServerProcess[];
let urls: string[];

beforeAll(async () => {
  // An empty database: the three replicas migrate and bootstrap it at the same time.
  database = await createTestDatabase({ empty: true });
  // Each delivery takes a while, so the replicas' workers have jobs in hand at the same time.
  discord = new FakeService().fallback({ status: 200, body: { id: 'm' }, delayMs: 30 });
  improvmx = new FakeService();
  await discord.start();
  await improvmx.start();
  replicas = await startReplicas(database, 3, {
    BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    DISCORD_API_ORIGIN: discord.origin,
    FORWARDING_PROVIDER: 'improvmx',
    IMPROVMX_API_KEY: 'improvmx-key-for-replicas',
    IMPROVMX_API_URL: `${improvmx.origin}/v3`,
    OUTBOX_RETRY_BASE_MS: '50',
    OUTBOUND_TIMEOUT_MS: '2000',
  });
  urls = replicas.map((replica) => replica.url);
});

afterAll(async () => {
  const codes = await Promise.all((replicas ?? []).map((replica) => replica.stop()));
  await discord?.stop();
  await improvmx?.stop();
  await database?.drop();
  expect(codes).toEqual(codes.map(() => 0));
});

/** The replica for the n-th request: round robin, as a load balancer does. */
const at = (n: number) => urls[n % urls.length] as string;

it('replicas starting together on an empty database migrate it once and bootstrap one account', async () => {
  expect(await selectColumn(database, 'SELECT COUNT(*) FROM accounts')).toEqual([1]);
  const versions = await selectColumn(database, 'SELECT version FROM schema_migrations');
  expect(new Set(versions).size).toBe(versions.length);
  for (const url of urls) {
    const res = await send(url, 'GET', '/stats/get-projects', { key: BOOTSTRAP_KEY });
    expect(res.status).toBe(200);
  }
});

it('E3: concurrent flips through all replicas are never lost', async () => {
  const me = await createAccount(urls[0] as string);
  const flips = 101;
  const answers = await Promise.all(
    Array.from({ length: flips }, (_, n) =>
      send(at(n), 'POST', '/pagesite/toggle-site-visibility', { key: me.apiKey }),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  // Each answer is a distinct state: 51 of one value, 50 of the other, ending visible.
  expect(answers.filter((a) => a.body.newStatus === true)).toHaveLength(51);
  for (const url of urls) {
    const site = await send(url, 'GET', '/pagesite/get-site-configuration', { key: me.apiKey });
    expect(site.body.visibility).toBe(true);
  }
});

it('E5: two accounts claiming one name on two replicas at once: one wins, the other gets 409', async () => {
  const alice = await createAccount(at(0));
  const bob = await createAccount(at(1));
  // The name each account holds at the end: the last one it won (none if it never won).
  const held = new Map<string, string>();
  for (let round = 0; round < 10; round++) {
    const name = `contested-${round}`;
    const [first, second] = await Promise.all(
      [alice, bob].map((who, n) =>
        send(at(round + n), 'POST', '/account/update-display-name', {
          key: who.apiKey,
          body: { display_name: name },
        }),
      ),
    );
    const outcomes = [first, second].map((a) => ({ status: a?.status, body: a?.body }));
    const won = outcomes.filter((o) => o.status === 200);
    expect(won, JSON.stringify(outcomes)).toHaveLength(1);
    expect(outcomes.filter((o) => o.status !== 200)).toEqual([
      { status: 409, body: { error: SpecError.displayNameTaken } },
    ]);
    held.set(first?.status === 200 ? 'alice' : 'bob', name);
  }
  // Each name is held once, by the account that won it last; the loser kept its earlier name.
  const names = await selectColumn(
    database,
    "SELECT display_name FROM profiles WHERE display_name LIKE 'contested-%' ORDER BY display_name",
  );
  expect(names).toEqual([...held.values()].sort());
});

describe('Idempotency-Key retries sent to another replica', () => {
  it.each([
    ['/stats/ingest-events', 'events'],
    ['/stats/ingest-metrics', 'metrics'],
  ] as const)('%s: replayed, one record', async (path, table) => {
    const me = await createAccount(at(0));
    const body =
      table === 'events'
        ? { projectId: me.projectId, eventType: 'build', payload: { retry: true } }
        : { projectId: me.projectId, payload: { retry: 1 } };
    const post = (url: string, key: string) =>
      send(url, 'POST', path, { key: me.apiKey, body, headers: { 'idempotency-key': key } });

    const first = await post(at(0), 'attempt-1');
    expect(first.status).toBe(200);
    for (const url of urls.slice(1)) {
      const again = await post(url, 'attempt-1');
      expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: first.body });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    }
    // The same key sent to every replica at once: one record, one id for all.
    const racing = await Promise.all(
      Array.from({ length: 12 }, (_, n) => post(at(n), 'attempt-2')),
    );
    expect(racing.map((a) => a.status)).toEqual(racing.map(() => 200));
    expect(new Set(racing.map((a) => a.body.id)).size).toBe(1);
    // Another body under a used key is refused on another replica too.
    const reused = await send(at(2), 'POST', path, {
      key: me.apiKey,
      body: { ...body, payload: { other: true } },
      headers: { 'idempotency-key': 'attempt-1' },
    });
    expect({ status: reused.status, body: reused.body }).toEqual({
      status: 422,
      body: { error: OwnError.idempotencyKeyReused },
    });
    const stored = await selectColumn(
      database,
      `SELECT COUNT(*) FROM ${table} WHERE project_id = ?`,
      me.projectId,
    );
    expect(stored).toEqual([2]);
  });
});

it('E2 and E5 of one account never interleave, whichever replicas receive them', async () => {
  const me = await createAccount(at(0));
  const setName = (url: string, display_name: string) =>
    send(url, 'POST', '/account/update-display-name', { key: me.apiKey, body: { display_name } });
  expect((await setName(at(0), 'interleave-a')).status).toBe(200);

  improvmx.requests.length = 0;
  // ImprovMX takes a second to create the alias: E5 arrives at another replica meanwhile.
  improvmx.queue({ status: 200, body: { success: true }, delayMs: 1_000 });
  const finished: string[] = [];
  const enable = send(at(1), 'POST', '/email-forwarding/email-forwarding-toggle', {
    key: me.apiKey,
    body: { enabled: true, email: 'owner@example.com' },
  }).then((answer) => {
    finished.push('E2');
    return answer;
  });
  await improvmx.waitFor(1);
  const rename = setName(at(2), 'interleave-b').then((answer) => {
    finished.push('E5');
    return answer;
  });
  expect((await enable).status).toBe(200);
  expect((await rename).status).toBe(200);
  // E5 waited for E2: it saw forwarding on, so it turned it off and queued the old alias's removal.
  expect(finished).toEqual(['E2', 'E5']);
  const status = await send(at(0), 'GET', '/email-forwarding/email-forwarding-status', {
    key: me.apiKey,
  });
  expect(status.body).toEqual({ enabled: false, email: '' });
  const removals = await improvmx.waitFor(1, (r) => r.method === 'DELETE');
  expect(removals.map((r) => r.path)).toEqual([
    '/v3/domains/mail.example.test/aliases/interleave-a',
  ]);
});

it('chat notifications of events sent to every replica are delivered exactly once', async () => {
  const me = await createAccount(at(0));
  discord.requests.length = 0;
  const count = 45;
  const ids = await Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const res = await send(at(n), 'POST', '/stats/ingest-events', {
        key: me.apiKey,
        body: {
          projectId: me.projectId,
          eventType: 'deploy',
          chatWebhook: { url: WEBHOOK, title: `replicated-${n}` },
        },
      });
      expect(res.status).toBe(200);
      return res.body.id as string;
    }),
  );
  await discord.waitFor(count, () => true, 20_000);
  // Time for a second delivery of any of them, were a job ever sent twice.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const titles = discord.requests.map((r) => /replicated-\d+/.exec(JSON.stringify(r.body))?.[0]);
  expect(titles.sort()).toEqual(Array.from({ length: count }, (_, n) => `replicated-${n}`).sort());
  expect(discord.requests.every((r) => r.replied === 200)).toBe(true);

  const page = await send(at(1), 'GET', `/stats/get-events?projectId=${me.projectId}&limit=200`, {
    key: me.apiKey,
  });
  const events = (page.body as unknown as EventPage).events.filter((e) => ids.includes(e.id));
  expect(events.map((e) => e.notification?.status)).toEqual(ids.map(() => 'delivered'));
});

it('a key revoked through one replica is refused by every replica within one second', async () => {
  const me = await createAccount(at(0));
  const { keyId, apiKey } = await createKey(at(0), me.accountId);
  const get = (url: string) => send(url, 'GET', '/stats/get-projects', { key: apiKey });
  // Every replica has checked (and may have cached) the key.
  for (const url of urls) expect((await get(url)).status).toBe(200);
  expect((await revokeKey(at(0), keyId)).status).toBe(204);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  for (const url of urls) {
    const res = await get(url);
    expect({ url, status: res.status }).toEqual({ url, status: 401 });
  }
  // The account's other key still works everywhere.
  for (const url of urls) {
    const res = await send(url, 'GET', '/stats/get-projects', { key: me.apiKey });
    expect(res.status).toBe(200);
  }
});
