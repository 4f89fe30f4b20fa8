import { afterEach, beforeEach, expect, it } from 'vitest';
import { OwnError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { type ServerProcess, startServerProcess } from '../helpers/process.js';
import {
  describeOnFailingDisk,
  type FailingDisk,
  mountFailingDisk,
} from '../helpers/small-filesystem.js';

/**
 * A flush of SQLite's log that fails, on a real disk whose flushes fail (a loop device whose
 * backing memory runs out, as a thin-provisioned volume's pool does): the group it served is
 * refused, and from then on every write is refused too, an Idempotency-Key retry of that group's
 * request included: its claim is committed (a commit cannot be taken back) but perhaps not on
 * disk, and replaying its answer would be a 2xx for a record perhaps lost. /healthz says so until
 * a restart; reads go on; the server logs it once. Both ways of flushing (flush-timing.ts).
 */

const KEY = 'failed-flush-key-0123456789abcdefghijklmnopqrstuvwxyz';
const FAILURE_LOG = 'a flush of the database log to disk failed';

describeOnFailingDisk('a flush of the log that fails (SQLite, DURABILITY=full)', () => {
  let disk: FailingDisk;
  let server: ServerProcess | undefined;
  beforeEach(() => {
    disk = mountFailingDisk();
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    disk.unmount();
  });

  it.each([
    [1000, 'on the event loop'],
    [0, 'in the thread pool'],
  ])(
    'INLINE_FLUSH_MAX_MS=%i (flushed %s): refused, and every write after, until a restart',
    async (inline) => {
      server = await startServerProcess({
        DATABASE_PATH: `${disk.dir}/stats.db`,
        BOOTSTRAP_API_KEY: KEY,
        DURABILITY: 'full',
        INLINE_FLUSH_MAX_MS: String(inline),
        LOG_LEVEL: 'info',
        RATE_LIMIT_INGEST_PER_MINUTE: '0',
      });
      const projectId = /project id:\s+(\S+)/.exec(server.output())?.[1] as string;
      const call = (method: string, path: string, body?: unknown, idempotencyKey?: string) =>
        fetch(`${(server as ServerProcess).url}${path}`, {
          method,
          headers: {
            'x-api-key': KEY,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const metric = (i: number) => ({
        projectId,
        payload: { duration_ms: i, note: 'x'.repeat(2_000) },
      });

      expect((await call('POST', Paths.ingestMetrics, metric(0), 'before')).status).toBe(200);
      disk.exhaust();
      // The log grows into blocks the device cannot back any more: the flush of one such write fails.
      let refused: { i: number; status: number; body: unknown } | undefined;
      for (let i = 1; i <= 400 && refused === undefined; i++) {
        const res = await call('POST', Paths.ingestMetrics, metric(i), `k${i}`);
        if (res.status !== 200) refused = { i, status: res.status, body: await res.json() };
      }
      expect(refused).toMatchObject({ status: 503, body: { error: OwnError.flushFailed } });
      const { i } = refused as { i: number };

      // The same request again: its claim was committed before the flush failed; no 2xx for it.
      const retry = await call('POST', Paths.ingestMetrics, metric(i), `k${i}`);
      expect({ status: retry.status, body: await retry.json() }).toEqual({
        status: 503,
        body: { error: OwnError.flushFailed },
      });
      // Nor for any other write, even one the disk would have room for.
      const other = await call('POST', Paths.ingestEvents, { projectId, eventType: 'build' });
      expect({ status: other.status, body: await other.json() }).toEqual({
        status: 503,
        body: { error: OwnError.flushFailed },
      });
      const before = await call('POST', Paths.ingestMetrics, metric(0), 'before');
      expect(before.status).toBe(503);

      // Reads go on.
      expect((await call('GET', Paths.getProjects)).status).toBe(200);
      // /healthz says why, with no Retry-After: a restart ends it.
      const health = await call('GET', Paths.health);
      expect({
        status: health.status,
        body: await health.json(),
        retryAfter: health.headers.get('retry-after'),
      }).toEqual({ status: 503, body: { error: OwnError.flushFailed }, retryAfter: null });
      // Logged once, with the device's error.
      const logged = server
        .output()
        .split('\n')
        .filter((line) => line.includes(FAILURE_LOG));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(/ENOSPC|EIO/);
    },
  );
});
