import { afterEach, beforeEach, expect, it } from 'vitest';
import { migrate as pgMigrate, type Sql } from '../../server/storage/postgres/pg-database.js';
import { pgMigrations } from '../../server/storage/postgres/pg-migrations.js';
import { openPgStorage } from '../../server/storage/postgres/pg-storage.js';
import { openDatabase } from '../../server/storage/sqlite/sqlite-database.js';
import { migrations as sqliteMigrations } from '../../server/storage/sqlite/sqlite-migrations.js';
import { openSqliteStorage } from '../../server/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../server/storage/storage.js';
import { executeSql, selectColumn } from '../helpers/database.js';
import {
  connect,
  createTestDatabase,
  onPostgres,
  type TestDatabase,
} from '../helpers/test-database.js';

/**
 * Judged records without a commit or a branch get no entry in the indexes by commit and by
 * branch (BENCHMARKS.md, issue 31): a database judged before keeps every lookup by commit and by
 * branch (compare by commit, a pull request's base, the default branch) answering as before.
 */

/** The migrations before the one that made the two indexes partial. */
const before = onPostgres
  ? pgMigrations.filter((m) => m.version < 23)
  : sqliteMigrations.filter((m) => m.version < 25);

let database: TestDatabase;
let storage: Storage | undefined;
beforeEach(async () => {
  database = await createTestDatabase({ empty: true });
});
afterEach(async () => {
  await storage?.close();
  storage = undefined;
  await database.drop();
});

async function migrateTo(migrations: typeof before) {
  if (!onPostgres) {
    openDatabase(database.location, 'full', migrations as typeof sqliteMigrations).close();
    return;
  }
  const sql = connect(database.location);
  try {
    await pgMigrate(sql as unknown as Sql, migrations as typeof pgMigrations);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

it('keeps the lookups by commit and by branch of records judged before it', async () => {
  await migrateTo(before);
  await executeSql(
    database,
    "INSERT INTO accounts (id, label, created_at) VALUES ('a', NULL, '2026-01-01T00:00:00.000Z')",
  );
  await executeSql(
    database,
    "INSERT INTO projects (id, account_id, name, name_key, created_at) VALUES ('p', 'a', 'Web', 'web', 'now')",
  );
  // Judged as a server of then judged them: on main with a commit, on a branch, and neither.
  const rows: [number, string, string | null, string | null][] = [
    [1, 'r1', 'main', 'c1'],
    [2, 'r2', null, null],
    [3, 'r3', 'feature', 'c2'],
    [4, 'r4', null, 'c1'],
    [5, 'r5', 'main', null],
    [6, 'r6', null, null],
  ];
  for (const [seq, id, branch, commit] of rows) {
    await executeSql(
      database,
      `INSERT INTO judged_records (seq, id, project_id, branch, commit_sha, created_at)
       VALUES (?, ?, 'p', ?, ?, ?)`,
      seq,
      id,
      branch,
      commit,
      1000 * seq,
    );
  }

  storage = onPostgres
    ? await openPgStorage({ url: database.location, leaseMs: 10_000 })
    : await openSqliteStorage({ path: database.location, durability: 'full' });

  // The indexes now hold the records with a commit (with a branch) only.
  const definitions = await selectColumn(
    database,
    onPostgres
      ? "SELECT indexdef FROM pg_indexes WHERE tablename = 'judged_records' AND indexname LIKE 'judged_records_by_%' ORDER BY indexname"
      : "SELECT sql FROM sqlite_master WHERE tbl_name = 'judged_records' AND name LIKE 'judged_records_by_%' ORDER BY name",
  );
  expect(definitions).toHaveLength(2);
  expect(String(definitions[0])).toMatch(/WHERE \(?branch IS NOT NULL\)?/);
  expect(String(definitions[1])).toMatch(/WHERE \(?commit_sha IS NOT NULL\)?/);

  const v = storage.verdicts;
  expect((await v.latestOfCommit('p', 'c1'))?.id).toBe('r4');
  expect((await v.latestOfCommit('p', 'c2'))?.id).toBe('r3');
  expect(await v.latestOfCommit('p', 'c3')).toBeUndefined();
  expect(await v.seqOfCommit('p', 'main', 'c1', 10)).toBe(1);
  expect(await v.seqOfCommit('p', 'main', 'c2', 10)).toBeUndefined();
  expect((await v.latestOnBranch('p', 'main', 10))?.id).toBe('r5');
  expect((await v.latestOnBranch('p', 'main', 4))?.id).toBe('r1');
  expect((await v.latestOnBranch('p', 'feature', 10))?.id).toBe('r3');
  // A record without a branch is the branch of none: not found as '' (nor was it before).
  expect(await v.latestOnBranch('p', '', 10)).toBeUndefined();
  expect(await v.latestOnBranch('p', 'master', 10)).toBeUndefined();
  // Records without either are still judged records, found by id.
  expect((await v.record('p', 'r6'))?.seq).toBe(6);
});
