import { afterAll, beforeAll } from 'vitest';
import type { EventPage, MetricPage } from '../../contract/readback.js';
import { FakeService } from './fake-service.js';
import { type ServerProcess, startServerProcess } from './process.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** What a reporter's end-to-end tests run against: the real server process and a fake Discord. */
export interface ReporterStand {
  /** The database's temporary directory, free for the test's own files. */
  dir: string;
  database: TestDatabase;
  discord: FakeService;
  server: ServerProcess;
  /** The bootstrap project, named in the server's banner. */
  projectId: string;
}

/**
 * One stand for a whole test file: the server started as `npm start` does with `apiKey` as its
 * bootstrap key and Discord's API at a fake that answers 200 (tests set their own replies), then
 * stopped after the file. `use` gets it once started.
 */
export function reporterStandPerFile(apiKey: string, use: (stand: ReporterStand) => void): void {
  let stand: ReporterStand | undefined;
  beforeAll(async () => {
    const database = await createTestDatabase();
    const discord = new FakeService().fallback({ status: 200, body: { id: 'm1' } });
    await discord.start();
    const server = await startServerProcess({
      ...database.env,
      BOOTSTRAP_API_KEY: apiKey,
      DISCORD_API_ORIGIN: discord.origin,
    });
    const projectId = /project id:\s+(\S+)/.exec(server.output())?.[1] as string;
    stand = { dir: database.dir, database, discord, server, projectId };
    use(stand);
  });
  afterAll(async () => {
    await stand?.server.stop();
    await stand?.discord.stop();
    await stand?.database.drop();
  });
}

/** Reads back what was reported, as the key's owner, from the stand `current()` gives. */
export function readBack(
  current: () => { server: ServerProcess; projectId: string },
  apiKey: string,
) {
  const read = async <T>(path: string): Promise<T> =>
    (await (
      await fetch(`${current().server.url}${path}`, { headers: { 'x-api-key': apiKey } })
    ).json()) as T;
  return {
    read,
    events: () => read<EventPage>(`/stats/get-events?projectId=${current().projectId}&limit=200`),
    metrics: () =>
      read<MetricPage>(`/stats/get-metrics?projectId=${current().projectId}&limit=200`),
  };
}
