import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { WalSync } from '../../server/storage/sqlite/wal-sync.js';
import { tempDir } from '../helpers/server.js';

/**
 * The flushes of a real SQLite log (wal-sync.ts): never two at once, whichever thread makes them.
 * That a 2xx follows its flush is durable-answer.test.ts's (strace); where each flush runs is
 * flush-timing.test.ts's.
 */

let dir: string;
let db: Database.Database;
let path: string;
beforeEach(() => {
  dir = tempDir();
  path = join(dir, 'x.db');
  db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (n INTEGER)');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

it('setting 0: never flushes on the event loop', async () => {
  const wal = new WalSync(path, 0);
  expect(wal.flushHere()).toBe(false);
  await wal.sync();
  expect(wal.flushHere()).toBe(false);
  wal.close();
});

it('on a fast disk it flushes on the event loop, but never while a flush runs in the thread pool', async () => {
  const wal = new WalSync(path, 1_000);
  expect(wal.flushHere()).toBe(true);
  const running = wal.sync();
  // That flush may have begun before the caller's commit: the caller waits for the next one.
  expect(wal.flushHere()).toBe(false);
  await running;
  expect(wal.flushHere()).toBe(true);
  wal.close();
});

it('asked while a flush runs, callers share the next one, which starts when it ends', async () => {
  const wal = new WalSync(path, 0);
  db.prepare('INSERT INTO t VALUES (1)').run();
  const first = wal.sync();
  db.prepare('INSERT INTO t VALUES (2)').run();
  const second = wal.sync();
  const third = wal.sync();
  expect(second).toBe(third);
  expect(second).not.toBe(first);
  let firstDone = false;
  void first.then(() => (firstDone = true));
  await second;
  expect(firstDone).toBe(true);
  wal.close();
});

it.each([
  [1_000, 'on the event loop'],
  [0, 'in the thread pool'],
])(
  'setting %i (%s): after a failed flush, every later flush fails with its error',
  async (inlineMaxMs) => {
    // A log that is not there (its connection never opened): the flush cannot be made.
    const other = join(dir, 'other.db');
    const wal = new WalSync(other, inlineMaxMs);
    const first =
      inlineMaxMs > 0
        ? (() => {
            try {
              wal.flushHere();
            } catch (error) {
              return error;
            }
          })()
        : await wal.sync().catch((error: unknown) => error);
    expect((first as NodeJS.ErrnoException).code).toBe('ENOENT');
    // The log exists now, and a flush of it would succeed: the failure stands.
    const now = new Database(other);
    now.pragma('journal_mode = WAL');
    now.exec('CREATE TABLE t (n INTEGER)');
    expect(() => wal.flushHere()).toThrow(first as Error);
    await expect(wal.sync()).rejects.toBe(first);
    now.close();
    wal.close();
  },
);
