import { MINUTE_MS } from '../../domain/time-buckets.js';
import type { Db } from './sqlite-database.js';

export type RecordTable = 'events' | 'metrics';

const MARKS: Record<RecordTable, string> = { events: 'event_marks', metrics: 'metric_marks' };
/** Mark lookups remembered per table (a few MB at most). */
const MAX_CACHED_MARKS = 100_000;

/**
 * Time ranges over the records without a time index. An index on (project, time) cost E7 and E8
 * more than a tenth of their throughput (every ingest pays for every index), so instead:
 * - a record's time never goes backwards in `seq` order (`stamp` holds it still while the clock
 *   steps back), and
 * - each table keeps a mark per minute: the first `seq` stored in that minute (one row a minute).
 * A time range [from, to) is then a `seq` range read on the (project, seq) index that every
 * table already has, with the exact time condition checked on the few rows at its ends.
 */
export function sqliteTimeMarks(db: Db) {
  const statements = (table: RecordTable) => ({
    mark: db.prepare(`INSERT OR IGNORE INTO ${MARKS[table]} (minute, seq) VALUES (?, ?)`),
    atOrBefore: db
      .prepare(`SELECT seq FROM ${MARKS[table]} WHERE minute <= ? ORDER BY minute DESC LIMIT 1`)
      .pluck(),
    after: db
      .prepare(`SELECT seq FROM ${MARKS[table]} WHERE minute > ? ORDER BY minute LIMIT 1`)
      .pluck(),
    lastMinute: db.prepare(`SELECT COALESCE(MAX(minute), -1) FROM ${MARKS[table]}`).pluck(),
  });
  const of = { events: statements('events'), metrics: statements('metrics') };
  const lastTime = db
    .prepare(
      `SELECT MAX(COALESCE((SELECT MAX(created_at) FROM events), 0),
                  COALESCE((SELECT MAX(created_at) FROM metrics), 0))`,
    )
    .pluck();

  let latest = lastTime.get() as number;
  // A minute whose mark was rolled back stays unmarked: its rows then fall in the range of the
  // mark before it, which only widens the seq ranges read (the time condition stays exact).
  const markedMinute = {
    events: of.events.lastMinute.get() as number,
    metrics: of.metrics.lastMinute.get() as number,
  };

  // Marks looked up before: a chart asks for the same bucket edges again and again.
  const cached = {
    events: { atOrBefore: new Map<number, number>(), after: new Map<number, number>() },
    metrics: { atOrBefore: new Map<number, number>(), after: new Map<number, number>() },
  };
  const remember = (cache: Map<number, number>, minute: number, seq: number) => {
    if (cache.size >= MAX_CACHED_MARKS) cache.clear();
    cache.set(minute, seq);
  };

  return {
    /** The time to store for a record made at `now`: never before the last one stored. */
    stamp(now: number): number {
      latest = Math.max(latest, now);
      return latest;
    },

    /** Called after each insert, in its transaction: marks the first record of a new minute. */
    stored(table: RecordTable, seq: number, createdAt: number): void {
      const minute = Math.floor(createdAt / MINUTE_MS) * MINUTE_MS;
      if (minute <= markedMinute[table]) return;
      markedMinute[table] = minute;
      of[table].mark.run(minute, seq);
    },

    /**
     * [lo, hi): a seq range holding every record of `table` made in [from, to); it may hold a
     * few more, from the minutes at its ends.
     */
    seqRange(table: RecordTable, from: number, to: number): [number, number] {
      const first = Math.floor(from / MINUTE_MS) * MINUTE_MS;
      const last = Math.floor((to - 1) / MINUTE_MS) * MINUTE_MS;
      const cache = cached[table];
      let lo = cache.atOrBefore.get(first);
      if (lo === undefined) {
        lo = (of[table].atOrBefore.get(first) ?? 0) as number;
        // Only minutes before the last marked one are settled (a later mark cannot move them).
        if (first < markedMinute[table]) remember(cache.atOrBefore, first, lo);
      }
      let hi = cache.after.get(last);
      if (hi === undefined) {
        const found = of[table].after.get(last) as number | undefined;
        hi = found ?? Number.MAX_SAFE_INTEGER;
        if (found !== undefined) remember(cache.after, last, hi);
      }
      return [lo, hi];
    },
  };
}

export type SqliteTimeMarks = ReturnType<typeof sqliteTimeMarks>;

/**
 * The migration's pass over records stored before the marks existed: times made non-decreasing
 * in seq order (a clock that stepped back), and each minute's first record marked.
 */
export function markStoredRecords(db: Db, table: RecordTable, chunk: number): void {
  const rows = db.prepare(
    `SELECT seq, created_at AS t FROM ${table} WHERE seq > ? ORDER BY seq LIMIT ${chunk}`,
  );
  const raise = db.prepare(`UPDATE ${table} SET created_at = ? WHERE seq = ?`);
  const mark = db.prepare(`INSERT OR IGNORE INTO ${MARKS[table]} (minute, seq) VALUES (?, ?)`);
  let latest = Number.NEGATIVE_INFINITY;
  let marked = Number.NEGATIVE_INFINITY;
  for (let after = 0, page: { seq: number; t: number }[]; ; ) {
    page = rows.all(after) as { seq: number; t: number }[];
    if (page.length === 0) return;
    for (const row of page) {
      if (row.t < latest) raise.run(latest, row.seq);
      latest = Math.max(latest, row.t);
      const minute = Math.floor(latest / MINUTE_MS) * MINUTE_MS;
      if (minute > marked) {
        marked = minute;
        mark.run(minute, row.seq);
      }
    }
    after = (page.at(-1) as { seq: number }).seq;
  }
}
