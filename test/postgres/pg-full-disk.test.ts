import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { type PrivatePostgres, startPrivatePostgres } from '../helpers/private-postgres.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import {
  describeOnSmallFilesystem,
  expectStorageFull,
  mountSmallFilesystem,
  type SmallFilesystem,
  storedEvents,
} from '../helpers/small-filesystem.js';
import { connect, type TestDatabase, tempDir } from '../helpers/test-database.js';

/**
 * Issue 22, part 4, on PostgreSQL: its disk fills up. The database lives in a tablespace on an
 * 8 MB tmpfs, in a cluster of the test's own (the shared one must not be touched), so writes fail
 * with PostgreSQL's 53100 disk_full while its WAL, elsewhere, is fine: each such write is 503 with
 * the reason and Retry-After, /healthz says so, and once room is back writes are accepted again
 * with nothing acknowledged lost.
 */

describeOnSmallFilesystem('a full disk under PostgreSQL', () => {
  let cluster: PrivatePostgres;
  let disk: SmallFilesystem;
  let server: TestServer;
  let me: TestAccount;

  beforeAll(async () => {
    disk = mountSmallFilesystem(8);
    cluster = await startPrivatePostgres();
    cluster.giveDirectory(disk.dir);
    const admin = connect(cluster.url('postgres'));
    try {
      await admin.unsafe(`CREATE TABLESPACE small LOCATION '${disk.dir}'`);
      await admin.unsafe('CREATE DATABASE stats TABLESPACE small');
    } finally {
      await admin.end({ timeout: 1 });
    }
    const database: TestDatabase = {
      backend: 'postgres',
      env: { DATABASE_URL: cluster.url('stats') },
      dir: tempDir(),
      location: cluster.url('stats'),
      name: 'stats',
      reusable: false,
      drop: async () => undefined,
    };
    server = await startTestServer({ RATE_LIMIT_INGEST_PER_MINUTE: '0' }, database);
    me = await server.account();
  }, 60_000);

  afterAll(async () => {
    await server?.app.close();
    cluster?.stop();
    disk?.unmount();
  });

  /** An event with a payload of about 30 kB: a few fill a page of the events table each. */
  const ingest = (n: number) =>
    server.call('POST', Paths.ingestEvents, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        eventType: 'build',
        payload: { n, blob: `${n}`.padEnd(30_000, 'x') },
      },
    });

  it('53100 is 503 with Retry-After, /healthz says so; with room again writes are accepted', async () => {
    const acknowledged: string[] = [];
    for (let n = 0; n < 3; n++) acknowledged.push((await ingest(n)).json().id);
    const filler = disk.fill();

    let refused: Awaited<ReturnType<typeof ingest>> | undefined;
    for (let n = 3; n < 200 && refused === undefined; n++) {
      const res = await ingest(n);
      if (res.statusCode === 200) acknowledged.push(res.json().id);
      else refused = res;
    }
    expectStorageFull(refused);
    expectStorageFull(await server.call('GET', Paths.health));

    rmSync(filler);
    const after = await ingest(1_000);
    expect(after.statusCode).toBe(200);
    acknowledged.push(after.json().id);
    const events = await storedEvents(server, me);
    expect(events.map((event) => event.id).sort()).toEqual([...acknowledged].sort());
  }, 60_000);
});
