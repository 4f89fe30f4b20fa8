import { onTestFinished } from 'vitest';
import { newRecordId } from '../../server/domain/ids.js';
import { branchOf, seriesOf, statusOf } from '../../server/domain/record-facts.js';
import { FOLD_LOCK } from '../../server/storage/postgres/pg-stats-fold.js';
import { selectColumn } from './database.js';
import type { TestServer } from './server.js';
import { connect, onPostgres, type TestDatabase } from './test-database.js';

/**
 * Stores records with chosen times through the real storage (its group commit and statistics
 * indexing), as E7 and E8 would have stored them at those times.
 */
export async function storeMetric(
  server: TestServer,
  projectId: string,
  createdAt: number,
  payload: Record<string, unknown>,
): Promise<void> {
  await server.app.storage.records.append({
    kind: 'metric',
    row: {
      id: newRecordId(),
      projectId,
      payload: JSON.stringify(payload),
      createdAt,
      branch: branchOf(payload),
    },
    series: seriesOf(payload),
  });
}

export async function storeEvent(
  server: TestServer,
  projectId: string,
  createdAt: number,
  eventType: string,
  payload: Record<string, unknown> | null,
): Promise<void> {
  await server.app.storage.records.append({
    kind: 'event',
    notification: undefined,
    row: {
      id: newRecordId(),
      projectId,
      eventType,
      description: null,
      payload: payload === null ? null : JSON.stringify(payload),
      color: null,
      createdAt,
      branch: branchOf(payload),
      status: statusOf(payload),
    },
  });
}

/** A reproducible stream of numbers in [0, 1) (mulberry32, shared with the benchmarks). */
export { seededRandom } from '../../bench/synthetic-series.js';

/**
 * Makes the server fold every record into its statistics cells. SQLite folds at most once a
 * second, in the next commit that stores a record: this waits a second and stores one (in a
 * project of its own, at `after`, a time no earlier than any record stored). PostgreSQL folds off
 * the commit, at the next turn (each second) of a replica that stored records: this then waits for
 * its queue to be empty. Statistics are read from cells and from the records not folded yet;
 * tests check both ways.
 */
export async function foldStatistics(server: TestServer, after: number): Promise<void> {
  const elsewhere = await server.account();
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await storeMetric(server, elsewhere.projectId, after, { fold: 1 });
  // The server's own backend: a test on PostgreSQL may run a SQLite twin beside it.
  if (server.database.backend !== 'postgres') return;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const [queued] = await selectColumn(server.database, 'SELECT count(*) FROM stats_queue');
    if (Number(queued) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the statistics were not folded within 10 s');
}

/**
 * Keeps the servers of a database from folding until released, for tests that read records not
 * folded yet (it may be held before a server starts):
 * PostgreSQL replicas skip their turn while another session holds the fold's lock (this one).
 * SQLite folds only in a commit that stores a record, which such tests do not make.
 */
export async function holdFolds(database: TestDatabase): Promise<{ release(): Promise<void> }> {
  if (!onPostgres) return { release: async () => {} };
  const sql = connect(database.location);
  await sql`SELECT pg_advisory_lock(${FOLD_LOCK[0]}, ${FOLD_LOCK[1]})`;
  let released: Promise<void> | undefined;
  const held = {
    release: () =>
      (released ??= (async () => {
        await sql`SELECT pg_advisory_unlock(${FOLD_LOCK[0]}, ${FOLD_LOCK[1]})`.catch(() => {});
        await sql.end({ timeout: 1 });
      })()),
  };
  onTestFinished(() => held.release());
  return held;
}

/** A mark that moves whenever records of a kind are folded into the cells (and only then). */
export async function foldedMark(server: TestServer, kind: 'events' | 'metrics') {
  const sql = onPostgres
    ? kind === 'events'
      ? 'SELECT sum(success + failure + cancelled + other) FROM event_cells WHERE unit = 3600000'
      : 'SELECT sum(count) FROM series_totals WHERE unit = 3600000'
    : `SELECT ${kind} FROM stats_progress`;
  return Number((await selectColumn(server.database, sql))[0] ?? 0);
}
