import { describe, expect, it } from 'vitest';
import { MAX_SERIES_PER_RECORD } from '../../server/domain/record-facts.js';
import type { Sql } from '../../server/storage/postgres/pg-database.js';
import { pgStatsFold } from '../../server/storage/postgres/pg-stats-fold.js';
import { selectRows } from '../helpers/database.js';
import { foldStatistics, storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { connect } from '../helpers/test-database.js';

/**
 * A fold of wide records: 60 records of 100 keys each (a record's most), 6,000 keys in all, fold
 * into more cells than one statement writes on PostgreSQL (5,000: pg-cell-writes.ts); then 60
 * more of the same keys, whose cells are added to those stored. Every cell of every table
 * (series_cells, series_totals, workflow_series_cells) is checked against sums computed here.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const RECORDS = 60;
const KEYS = RECORDS * MAX_SERIES_PER_RECORD;
const AT = Date.parse('2026-03-02T10:00:00Z');
const name = (i: number) => `k${String(i).padStart(4, '0')}`;

/** The records of every key, key i's value i × factor. */
async function storeAll(at: number, factor: number) {
  // At once: the group commit stores them together.
  await Promise.all(
    Array.from({ length: RECORDS }, (_, r) => {
      const first = r * MAX_SERIES_PER_RECORD;
      return storeMetric(server, me.projectId, at, {
        ci: { branch: 'main', job: 'wide' },
        wide: Object.fromEntries(
          Array.from({ length: MAX_SERIES_PER_RECORD }, (_, i) => [
            name(first + i),
            (first + i) * factor,
          ]),
        ),
      });
    }),
  );
}

/**
 * Folds every record stored: on PostgreSQL by the fold itself, here, so that an error of its
 * statements is thrown (the server's turns keep the records for a later turn instead), however
 * long a loaded machine takes.
 */
async function foldAll(after: number) {
  if (server.database.backend !== 'postgres') return foldStatistics(server, after);
  const sql = connect(server.database.location);
  try {
    await pgStatsFold(sql as unknown as Sql, 0).foldAll();
  } finally {
    await sql.end({ timeout: 5 });
  }
}

describe('a fold of more cells than one statement writes', () => {
  it('adds every cell of the second record to the first one’s stored cells', async () => {
    await storeAll(AT, 1);
    await foldAll(AT + 1_000);
    await storeAll(AT + 1_000, 2);
    await foldAll(AT + 2_000);

    const tables = [
      ['series_cells', "AND branch = 'main'"],
      ['series_totals', ''],
      ['workflow_series_cells', "AND workflow = 'wide' AND branch = 'main'"],
    ] as const;
    for (const [table, where] of tables) {
      const rows = await selectRows(
        server.database,
        `SELECT key, count, min, max, sum FROM ${table}
          WHERE project_id = ? AND key LIKE 'wide.%' ${where}`,
        me.projectId,
      );
      const byKey = new Map<string, { count: number; min: number; max: number; sum: number }[]>();
      for (const row of rows) {
        const key = String(row.key);
        byKey.set(key, [
          ...(byKey.get(key) ?? []),
          {
            count: Number(row.count),
            min: Number(row.min),
            max: Number(row.max),
            sum: Number(row.sum),
          },
        ]);
      }
      expect(byKey.size, table).toBe(KEYS);
      for (let i = 0; i < KEYS; i++) {
        const cells = byKey.get(`wide.${name(i)}`) ?? [];
        expect(cells.length, `${table} wide.${name(i)}`).toBeGreaterThan(0);
        // Both records of the key in every cell of it (a second apart: the same units' cells).
        for (const cell of cells)
          expect(cell, `${table} wide.${name(i)}`).toEqual({
            count: 2,
            min: i,
            max: 2 * i,
            sum: 3 * i,
          });
      }
    }
    // 120 wide records stored and folded twice on a machine the other tests share.
  }, 180_000);
});
