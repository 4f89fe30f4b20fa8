import { rmSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase } from '../../server/storage/sqlite/sqlite-database.js';
import { sqliteStatsIndex } from '../../server/storage/sqlite/sqlite-stats.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * SQLite folds the records into the statistics cells inside a group's commit, at most every
 * 100 ms (docs/api.md): a fold holds the event loop, so what one fold takes in is bounded by
 * time (and by FOLD_AFTER_RECORDS). Each commit here is a group's: the records, then
 * `beforeCommit` at the given time, then the commit.
 */

// SQLite only (excluded from the postgres project): PostgreSQL folds a queue on a timer.
let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => rmSync(database.dir, { recursive: true, force: true }));

const T = Date.parse('2026-11-29T12:00:00.000Z');
/** FOLD_EVERY_MS, as the docs give it. */
const EVERY_MS = 100;

it('folds the records stored since the last fold once 100 ms have passed, not before', () => {
  const db = openDatabase(database.location);
  try {
    db.exec(`INSERT INTO accounts VALUES ('a', NULL, '2026-01-01T00:00:00.000Z');
      INSERT INTO projects (id, account_id, name, created_at, name_key)
      VALUES ('p', 'a', 'Web', '2026-01-01T00:00:00.000Z', 'web');`);
    const insert = db.prepare(
      `INSERT INTO metrics (id, project_id, payload, created_at, branch) VALUES (?, 'p', ?, ?, 'main')`,
    );
    const countOf = db.prepare("SELECT count FROM series WHERE project_id = 'p' AND key = 'ms'");
    const index = sqliteStatsIndex(db);
    let stored = 0;
    /** One group: a record stored at `at`, then the fold's turn at `at`, then the commit. */
    const group = (at: number) => {
      db.transaction(() => {
        stored += 1;
        const { lastInsertRowid } = insert.run(`m${stored}`, JSON.stringify({ ms: stored }), at);
        index.appended(Number(lastInsertRowid), {
          projectId: 'p',
          branch: 'main',
          t: at,
          leaves: [['ms', stored]],
          workflow: null,
        });
        index.beforeCommit(at);
      })();
      index.committed();
      return {
        folded: index.watermark().metrics,
        counted: (countOf.get() as { count: number } | undefined)?.count ?? 0,
      };
    };

    const cases: [at: number, folded: number, counted: number][] = [
      // Nothing folded yet: the first group folds.
      [T, 1, 1],
      // Within 100 ms of that fold: the records wait, read from the table by reads.
      [T + 1, 1, 1],
      [T + EVERY_MS - 1, 1, 1],
      // 100 ms after it: every waiting record is folded, each once.
      [T + EVERY_MS, 4, 4],
      [T + EVERY_MS + 1, 4, 4],
      [T + 2 * EVERY_MS, 6, 6],
    ];
    for (const [at, folded, counted] of cases) {
      expect({ at: at - T, ...group(at) }).toEqual({ at: at - T, folded, counted });
    }
  } finally {
    db.close();
  }
});
