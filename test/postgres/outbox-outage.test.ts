import { afterEach, beforeEach, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { selectRows } from '../helpers/database.js';
import { FakeService } from '../helpers/fake-service.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import {
  createTestDatabase,
  POSTGRES_ADMIN_URL,
  type TestDatabase,
} from '../helpers/test-database.js';

/**
 * Issue 22, part 4, on PostgreSQL: the database goes away (its connections cut by a TCP relay,
 * as restart.test.ts does, not by restarting the shared cluster) while Discord is accepting
 * notifications. Their outcomes cannot be recorded; the outbox pauses, keeps them, records them
 * once the database is back, and sends no notification twice (before: each delivery in flight at
 * the outage was sent again once its lease ran out).
 */

const NOTIFICATIONS = 20;
const IN_FLIGHT = 8;
/** A claim's lease is 2 x this + 5 s: 11 s, which the test waits past after the outage. */
const TIMEOUT_MS = 3_000;
const LEASE_MS = 2 * TIMEOUT_MS + 5_000;

let database: TestDatabase;
let proxy: TcpProxy;
let discord: FakeService;
let server: TestServer | undefined;
let me: TestAccount;
beforeEach(async () => {
  database = await createTestDatabase();
  proxy = new TcpProxy(Number(new URL(POSTGRES_ADMIN_URL).port || 5432));
  await proxy.start();
  discord = new FakeService().fallback({ status: 200, body: { id: '1' } });
  await discord.start();
  const relayed = new URL(database.location);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(proxy.port);
  server = await startTestServer(
    {
      DATABASE_URL: relayed.toString(),
      DISCORD_API_ORIGIN: discord.origin,
      OUTBOUND_TIMEOUT_MS: String(TIMEOUT_MS),
      RATE_LIMIT_INGEST_PER_MINUTE: '0',
    },
    database,
  );
  me = await server.account();
});
afterEach(async () => {
  await proxy.start().catch(() => undefined);
  await server?.app.close();
  await discord.stop();
  await proxy.stop();
  await database.drop();
});

it('an outage while deliveries are in flight: paused, recorded after, no notification sent twice', async () => {
  discord.hold();
  for (let i = 0; i < NOTIFICATIONS; i++) {
    const res = await (server as TestServer).call('POST', Paths.ingestEvents, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        eventType: 'deploy',
        chatWebhook: {
          url: `https://discord.com/api/webhooks/${1000 + i}/token-${i}`,
          title: `n${i}`,
        },
      },
    });
    expect(res.statusCode).toBe(200);
  }
  await discord.waitFor(IN_FLIGHT);

  // The database goes away; Discord then accepts what is in flight.
  await proxy.stopAccepting();
  proxy.dropConnections();
  discord.release();
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(discord.requests).toHaveLength(IN_FLIGHT);

  await proxy.start();
  await expect
    .poll(() => discord.requests.length, { timeout: 20_000, interval: 100 })
    .toBeGreaterThanOrEqual(NOTIFICATIONS);
  // Past the leases of the deliveries that were in flight: none of them is taken up again.
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 1_000));
  const paths = discord.requests.map((request) => request.path);
  expect(paths).toHaveLength(NOTIFICATIONS);
  expect(new Set(paths).size).toBe(NOTIFICATIONS);
  const outcomes = await selectRows(database, 'SELECT status, attempts FROM outbox');
  expect(outcomes).toEqual(Array(NOTIFICATIONS).fill({ status: 'delivered', attempts: 1 }));
}, 60_000);
