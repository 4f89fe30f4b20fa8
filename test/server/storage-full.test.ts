import { expect, it } from 'vitest';
import { StorageFull, StorageUnavailable } from '../../server/domain/domain-errors.js';
import { translated } from '../../server/storage/postgres/pg-unavailable.js';
import { SpaceWatch } from '../../server/storage/space-watch.js';
import { translatedSqliteError } from '../../server/storage/sqlite/sqlite-errors.js';

/**
 * What each backend's "no space left" becomes (the domain's StorageFull, 503), and how a storage
 * tells /healthz that it is over. The full disk itself: full-disk.test.ts (SQLite on a tmpfs).
 */

it.each([
  ['SQLite: SQLITE_FULL', translatedSqliteError({ code: 'SQLITE_FULL' }), StorageFull],
  ['PostgreSQL: 53100 disk_full', translated({ code: '53100' }), StorageFull],
  ['PostgreSQL: 57P01 admin shutdown', translated({ code: '57P01' }), StorageUnavailable],
])('%s', (_what, error, kind) => {
  expect(error).toBeInstanceOf(kind);
});

it.each([
  ['SQLite: SQLITE_CONSTRAINT', translatedSqliteError, { code: 'SQLITE_CONSTRAINT' }],
  ['SQLite: SQLITE_IOERR', translatedSqliteError, { code: 'SQLITE_IOERR' }],
  ['PostgreSQL: 53200 out of memory', translated, { code: '53200' }],
  ['PostgreSQL: 23505 unique violation', translated, { code: '23505' }],
])('%s stays as it is', (_what, translate, error) => {
  expect(translate(error)).toBe(error);
});

it('a storage is full from a StorageFull until its own test says there is room', async () => {
  let room = false;
  const space = new SpaceWatch(async () => room);
  expect(await space.full()).toBe(false);
  const other = new Error('other');
  expect(space.saw(other)).toBe(other);
  expect(await space.full()).toBe(false);
  space.saw(new StorageFull('storage-full'));
  expect(await space.full()).toBe(true);
  expect(await space.full()).toBe(true);
  room = true;
  expect(await space.full()).toBe(false);
  room = false;
  expect(await space.full()).toBe(false);
});

it('with a quiet period, room is asked for only once no write failed so for that long', async () => {
  let asked = 0;
  const space = new SpaceWatch(async () => {
    asked++;
    return true;
  }, 200);
  space.saw(new StorageFull('storage-full'));
  expect(await space.full()).toBe(true);
  expect(asked).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 250));
  expect(await space.full()).toBe(false);
  expect(asked).toBe(1);
});
