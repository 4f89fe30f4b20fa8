import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FlushFailed, GroupCommit } from '../../server/storage/sqlite/group-commit.js';
import { tempDir } from '../helpers/server.js';

/** Group commit on a real SQLite file. */

let dir: string;
let db: Database.Database;
let commits: GroupCommit;

beforeEach(() => {
  dir = tempDir();
  db = new Database(join(dir, 'x.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (n INTEGER NOT NULL CHECK (n >= 0))');
  commits = new GroupCommit(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (n: number) => () => db.prepare('INSERT INTO t (n) VALUES (?)').run(n).changes;
const rows = () => db.prepare('SELECT n FROM t ORDER BY n').pluck().all();

it('writes of one loop turn commit together, each answered with its result', async () => {
  let groups = 0;
  commits.onCommit(() => {
    groups += 1;
  });
  const results = await Promise.all([1, 2, 3].map((n) => commits.run(insert(n))));
  expect(results).toEqual([1, 1, 1]);
  expect(groups).toBe(1);
  expect(rows()).toEqual([1, 2, 3]);
});

it('a failing write is rejected alone; the rest of its group commits', async () => {
  const outcomes = await Promise.allSettled([
    commits.run(insert(1)),
    commits.run(insert(-1)),
    commits.run(insert(3)),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(rows()).toEqual([1, 3]);
});

it('a write that fails halfway leaves nothing of itself behind', async () => {
  const both = () => {
    insert(5)();
    insert(-5)();
  };
  const outcomes = await Promise.allSettled([commits.run(both), commits.run(insert(7))]);
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
  expect(rows()).toEqual([7]);
});

it('when the commit itself fails, every write of the group is rejected and nothing is stored', async () => {
  // A deferred constraint is checked only at COMMIT: every write succeeds, the commit does not,
  // as with a disk that fills up at the end of a transaction.
  db.pragma('foreign_keys = ON');
  db.exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
           CREATE TABLE child (parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)`);
  let commitsHeard = 0;
  commits.onCommit(() => {
    commitsHeard += 1;
  });
  const orphan = () => db.prepare('INSERT INTO child (parent) VALUES (42)').run().changes;
  const outcomes = await Promise.allSettled([commits.run(insert(1)), commits.run(orphan)]);
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
  expect(rows()).toEqual([]);
  expect(commitsHeard).toBe(0);
});

describe('with the log flushed off the event loop (DURABILITY=full)', () => {
  /** Each call of the flush, resolved or failed by the test: the disk, played by the test. */
  let flushes: { resolve: () => void; reject: (error: Error) => void }[];
  let durable: GroupCommit;
  beforeEach(() => {
    flushes = [];
    durable = new GroupCommit(db, {
      // A slow disk: never flushed on the event loop.
      flushHere: () => false,
      sync: () =>
        new Promise<void>((resolve, reject) => {
          flushes.push({ resolve, reject });
        }),
    });
  });

  const settledYet = async (promise: Promise<unknown>) => {
    let settled = false;
    void promise.then(
      () => (settled = true),
      () => (settled = true),
    );
    // Enough turns of the loop for a group to be scheduled, committed and answered.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    return settled;
  };

  it('answers only once the flush asked for after the commit has ended', async () => {
    const write = durable.run(insert(1));
    expect(await settledYet(write)).toBe(false);
    // Committed (visible to reads) but not answered.
    expect(rows()).toEqual([1]);
    expect(flushes).toHaveLength(1);
    flushes[0]?.resolve();
    expect(await write).toBe(1);
  });

  it('writes that arrive during a flush wait for it, then commit as one group with a flush of its own', async () => {
    let groups = 0;
    durable.onCommit(() => {
      groups += 1;
    });
    const first = durable.run(insert(1));
    expect(await settledYet(first)).toBe(false);
    // Two more writes, in separate turns of the loop, while the first group's flush runs.
    const second = durable.run(insert(2));
    expect(await settledYet(second)).toBe(false);
    const third = durable.run(insert(3));
    expect(await settledYet(third)).toBe(false);
    expect(rows()).toEqual([1]);
    expect(flushes).toHaveLength(1);
    flushes[0]?.resolve();
    expect(await first).toBe(1);
    expect(await settledYet(second)).toBe(false);
    // Committed together after the first flush, and not answered before their own.
    expect(rows()).toEqual([1, 2, 3]);
    expect(groups).toBe(2);
    expect(flushes).toHaveLength(2);
    flushes[1]?.resolve();
    expect(await Promise.all([second, third])).toEqual([1, 1]);
  });

  it('a group that changed no row is answered without a flush; the next write still waits for one', async () => {
    const read = durable.run(() => rows().length);
    expect(await read).toBe(0);
    expect(flushes).toHaveLength(0);
    const write = durable.run(insert(4));
    expect(await settledYet(write)).toBe(false);
    expect(flushes).toHaveLength(1);
    flushes[0]?.resolve();
    expect(await write).toBe(1);
    // An UPDATE that matches nothing changes no row either; one that matches does.
    const none = durable.run(() => db.prepare('UPDATE t SET n = 9 WHERE n = 100').run().changes);
    expect(await none).toBe(0);
    const one = durable.run(() => db.prepare('UPDATE t SET n = 9 WHERE n = 4').run().changes);
    expect(await settledYet(one)).toBe(false);
    expect(flushes).toHaveLength(2);
    flushes[1]?.resolve();
    expect(await one).toBe(1);
  });

  it('a failed flush acknowledges none of its group, nor any write after it', async () => {
    const failures: FlushFailed[] = [];
    durable.onFlushFailed((failure) => failures.push(failure));
    const writes = [durable.run(insert(1)), durable.run(insert(2))];
    await settledYet(writes[0] as Promise<unknown>);
    // Queued while the flush runs: committed after it, if at all.
    const queued = durable.run(insert(3));
    const eio = new Error('EIO: i/o error, fdatasync');
    flushes[0]?.reject(eio);
    const outcomes = await Promise.allSettled([...writes, queued]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const reasons = outcomes.map((o) => (o as PromiseRejectedResult).reason);
    expect(reasons[0]).toBeInstanceOf(FlushFailed);
    expect((reasons[0] as FlushFailed).cause).toBe(eio);
    expect(new Set(reasons).size).toBe(1);
    expect(failures).toEqual([reasons[0]]);
    expect(durable.failed).toBe(reasons[0]);
    // The failed group stays committed; the queued write never ran, and nothing runs any more,
    // not even a write that changes nothing (a replay of an earlier answer would be one).
    let ran = false;
    const later = durable.run(() => {
      ran = true;
      return rows().length;
    });
    await expect(later).rejects.toBe(reasons[0]);
    expect(ran).toBe(false);
    expect(rows()).toEqual([1, 2]);
    expect(flushes).toHaveLength(1);
  });

  it('flushed() resolves once every committed group is on disk, and rejects once a flush failed', async () => {
    await durable.flushed();
    const write = durable.run(insert(1));
    await settledYet(write);
    // Committed (a read sees it), not yet flushed: what the outbox must not act on.
    expect(rows()).toEqual([1]);
    const waiting = durable.flushed();
    expect(await settledYet(waiting)).toBe(false);
    flushes[0]?.resolve();
    await waiting;
    expect(await write).toBe(1);
    const second = durable.run(insert(2));
    await settledYet(second);
    const failing = durable.flushed();
    flushes[1]?.reject(new Error('EIO: i/o error, fdatasync'));
    await expect(failing).rejects.toBeInstanceOf(FlushFailed);
    await expect(second).rejects.toBeInstanceOf(FlushFailed);
    await expect(durable.flushed()).rejects.toBeInstanceOf(FlushFailed);
  });

  it('a group committed beside a flush that then fails is not answered, whatever its own flush says', async () => {
    const first = durable.run(insert(1));
    await settledYet(first);
    // drain() commits what is queued without waiting for the running flush (at shutdown).
    const second = durable.run(insert(2));
    const draining = durable.drain();
    await settledYet(second);
    expect(flushes).toHaveLength(2);
    flushes[0]?.reject(new Error('EIO: i/o error, fdatasync'));
    flushes[1]?.resolve();
    const outcomes = await Promise.allSettled([first, second]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(FlushFailed);
    await draining;
  });

  it('what a commit listener returns runs once its group is durable; drain waits for the flush', async () => {
    const heard: string[] = [];
    durable.onCommit(() => {
      heard.push('committed');
      return () => heard.push('durable');
    });
    const write = durable.run(insert(1));
    await settledYet(write);
    expect(heard).toEqual(['committed']);
    const draining = durable.drain();
    expect(await settledYet(draining)).toBe(false);
    flushes[0]?.resolve();
    await write;
    await draining;
    expect(heard).toEqual(['committed', 'durable']);
  });
});

describe('with the log flushed on the event loop (DURABILITY=full on a fast disk)', () => {
  /** What the flusher saw at each call: whether the group's transaction had ended. */
  let calls: { afterCommit: boolean; rows: unknown[] }[];
  let failWith: Error | undefined;
  let synced: number;
  let durable: GroupCommit;
  beforeEach(() => {
    calls = [];
    failWith = undefined;
    synced = 0;
    durable = new GroupCommit(db, {
      flushHere: () => {
        calls.push({ afterCommit: !db.inTransaction, rows: rows() });
        if (failWith) throw failWith;
        return true;
      },
      sync: async () => {
        synced += 1;
      },
    });
  });

  it('flushes after the commit, once per group, and answers the group then, without the thread pool', async () => {
    const writes = [durable.run(insert(1)), durable.run(insert(2))];
    expect(await Promise.all(writes)).toEqual([1, 1]);
    expect(calls).toEqual([{ afterCommit: true, rows: [1, 2] }]);
    expect(synced).toBe(0);
    // A group that changed no row asks for no flush.
    expect(await durable.run(() => rows().length)).toBe(2);
    expect(calls).toHaveLength(1);
  });

  it('a flush that fails acknowledges none of its group nor any write after, and the commit listeners are not told it is durable', async () => {
    const heard: string[] = [];
    durable.onCommit(() => {
      heard.push('committed');
      return () => heard.push('durable');
    });
    const failures: FlushFailed[] = [];
    durable.onFlushFailed((failure) => failures.push(failure));
    failWith = new Error('EIO: i/o error, fdatasync');
    const outcomes = await Promise.allSettled([durable.run(insert(1)), durable.run(insert(2))]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    const reason = (outcomes[0] as PromiseRejectedResult).reason as FlushFailed;
    expect(reason).toBeInstanceOf(FlushFailed);
    expect(reason.cause).toBe(failWith);
    expect(failures).toEqual([reason]);
    expect(heard).toEqual(['committed']);
    expect(synced).toBe(0);
    // The disk answers again; the server still refuses: what it holds is not known.
    failWith = undefined;
    await expect(durable.run(insert(3))).rejects.toBe(reason);
    expect(rows()).toEqual([1, 2]);
    expect(calls).toHaveLength(1);
    expect(failures).toHaveLength(1);
  });
});
